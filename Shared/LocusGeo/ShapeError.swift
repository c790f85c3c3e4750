/// Why a shape was rejected: an open ring, too few positions, NaN, a value out of range…
///
/// The message names the ring and position so a client can fix its GeoJSON; the geofence
/// service forwards it as the `message` of a `region.failed` with code `invalidShape`.
public struct ShapeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
