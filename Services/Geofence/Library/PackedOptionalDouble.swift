/// An optional Double in 8 bytes, NaN standing for nil: a device keeps one track per nearby
/// region and the per-fix path reads them all, so every track field that is a plain
/// `Double?` (9 bytes, padded to 16) costs cache space on every fix.
///
/// A NaN stored through it reads back as nil; the geofence never stores one (fix times
/// and distances come from validated, finite fixes).
public struct PackedOptionalDouble: Sendable, Equatable {
    private var raw: Double

    public init(_ value: Double?) {
        raw = value ?? .nan
    }

    public var value: Double? {
        @inline(__always) get { raw.isNaN ? nil : raw }
        @inline(__always) set { raw = newValue ?? .nan }
    }

    public static func == (lhs: PackedOptionalDouble, rhs: PackedOptionalDouble) -> Bool {
        lhs.raw == rhs.raw || (lhs.raw.isNaN && rhs.raw.isNaN)
    }
}
