public import LocusProtocol

/// What the bus side hands to the server side about one device: a position to serve, or
/// what a raw receiver fix said about satellites (the fused estimate carries none).
public enum DeviceUpdate: Sendable, Equatable {
    /// A fused (or approximate) fix; `t` is the message time, the fix time unless the fix has an `age`.
    case fix(Location, t: Double)
    /// Satellites used and HDOP from a raw fix of the device, at fix time `t`.
    case satellites(device: String, used: Int?, hdop: Double?, t: Double)

    public var device: String {
        switch self {
        case .fix(let location, _): location.device
        case .satellites(let device, _, _, _): device
        }
    }
}
