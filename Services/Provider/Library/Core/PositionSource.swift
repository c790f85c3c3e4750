/// The seam every provider plugin implements: a producer of fixes that runs on its own
/// thread and hands them to the service loop through a `SourceOutput`.
///
/// Contract: `run` blocks until the input ends, the source fails for good, or
/// `context.stop` is raised; it must check the stop flag at least every few hundred
/// milliseconds (use `context.stop.sleep` and poll timeouts, never an unbounded wait).
/// A source never touches a socket of the bus and never filters fixes itself: the
/// `ProviderLogic` applies `control.<device>` settings to whatever it emits. A new
/// plugin is one new file with one type conforming to this protocol.
public protocol PositionSource: Sendable {
    /// The plugin name reported in health (`nmea`, `gpsd`, `gpx`, `sim`, `fixed`, `exec`).
    var plugin: String { get }
    /// Produces fixes until done; returning means the source has finished.
    func run(_ context: SourceContext)
    /// True for a source whose fixes name their own device (phones: each report says which
    /// one), delivered with `SourceContext.emit(_:t:as:)`; false: every fix is `--device-id`'s.
    var namesItsDevices: Bool { get }
}

extension PositionSource {
    public var namesItsDevices: Bool { false }
}
