/// A beacon database that could not be opened, read or written, phrased for a person.
public struct BeaconDatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
