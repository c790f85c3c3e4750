public import LocusProtocol

/// Why a `region.add` was refused; becomes a `region.failed` reply.
public struct RegionRejection: Error, Sendable, Equatable {
    public var code: RegionFailureCode
    public var message: String

    public init(_ code: RegionFailureCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
