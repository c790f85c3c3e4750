import Foundation
public import LocusProtocol

/// One position at a fixed interval, stamped with the wall clock: a stationary gateway,
/// or a known point for testing what downstream services do.
public struct FixedSource: PositionSource {
    public var location: Location
    public var intervalSeconds: Double
    /// Stop after this many fixes (nil: until stopped).
    public var count: Int?
    public let plugin = "fixed"

    public init(location: Location, intervalSeconds: Double = 1, count: Int? = nil) {
        self.location = location
        self.intervalSeconds = intervalSeconds
        self.count = count
    }

    public func run(_ context: SourceContext) {
        var sent = 0
        while !context.stop.isRaised, count.map({ sent < $0 }) ?? true {
            context.emit(location, t: Date().timeIntervalSince1970)
            sent += 1
            if count.map({ sent >= $0 }) ?? false { break }
            if !context.stop.sleep(seconds: intervalSeconds) { break }
        }
        context.finish()
    }
}
