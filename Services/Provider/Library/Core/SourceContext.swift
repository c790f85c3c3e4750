public import LocusService
public import LocusProtocol

/// Everything a running source may use: where fixes go, the stop flag, the shared
/// status, and the device it speaks for.
///
/// Fixes are delivered to the service logic (not published directly) so that one
/// single-threaded `ControlPolicy` decides what reaches the bus.
public final class SourceContext: @unchecked Sendable {
    public let device: String
    public let stop: StopFlag
    public let status: SourceStatus
    private let sink: @Sendable (Injector.Item) -> Void
    private var ids = MessageIDGenerator()
    private let src: String

    public init(device: String, stop: StopFlag, status: SourceStatus, src: String = "provider/source",
                sink: @escaping @Sendable (Injector.Item) -> Void) {
        self.device = device
        self.stop = stop
        self.status = status
        self.src = src
        self.sink = sink
    }

    /// A context that feeds an injector of the runtime.
    public convenience init(device: String, injector: Injector, stop: StopFlag, status: SourceStatus) {
        self.init(device: device, stop: stop, status: status) { injector.send($0) }
    }

    /// Hands one fix (time `t`, Unix seconds) to the logic, which filters and publishes it.
    public func emit(_ location: Location, t: Double) {
        emit(location, t: t, as: device)
    }

    /// Hands one fix of another device (a phone named by its own report) to the logic; only a
    /// source that `namesItsDevices` may do so.
    public func emit(_ location: Location, t: Double, as device: String) {
        var location = location
        location.device = device
        let message = Message(body: .location(location), id: ids.next(), t: t, src: src)
        sink(.deliver(topic: Topic.locationRaw(device), message: message))
        status.set(.fix)
    }

    /// Publishes a message as is (e.g. `motion.<device>` from an exec plugin).
    public func publish(_ outbound: Outbound) {
        sink(.publish(outbound))
    }

    /// Reports a problem on `error.provider` and in the log.
    public func problem(code: String, _ message: String) {
        sink(.problem(code: code, message: message))
    }

    /// Repairs a fix time with `rollover` against the system clock; the first repair is
    /// reported once on `error.provider` and stays in health (`detail.rollover`).
    public func repairRollover(_ t: Double, with rollover: inout WeekRollover, now: Double) -> Double {
        let (repaired, first) = rollover.repair(t, now: now)
        if first, let weeks = rollover.weeks {
            let text = WeekRollover.describe(weeks: weeks, from: t, to: repaired)
            status.setRemark("rollover", "+\(weeks) weeks")
            problem(code: "weekRollover", text)
        }
        return repaired
    }

    /// Says the source has ended (end of a replayed file).
    public func finish() {
        status.set(.finished)
        sink(.finished)
    }
}
