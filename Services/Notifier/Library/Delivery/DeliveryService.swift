public import Foundation
public import LocusService

/// Owns the sink workers: starts them over one outbox directory, wakes them when new
/// notifications are stored, and drains them (bounded) at the end of `--stdio` input.
public final class DeliveryService: @unchecked Sendable {
    private let workers: [SinkWorker]
    private let checkpointer: OutboxCheckpointer
    let reports = DeliveryReports()
    public let sinkNames: [String]

    /// - Parameters:
    ///   - sinks: name and factory per sink; each factory runs on its sink's own thread.
    public init(directory: URL, sinks: [(name: String, make: @Sendable () throws -> any NotificationSink)],
                policy: RetryPolicy, service: String = "notifier") {
        let reports = self.reports
        workers = sinks.map { SinkWorker(name: $0.name, directory: directory, policy: policy, reports: reports,
                                         service: service, makeSink: $0.make) }
        sinkNames = sinks.map(\.name)
        checkpointer = OutboxCheckpointer(directory: directory)
    }

    /// Convenience for parsed `--sink` values.
    public convenience init(directory: URL, specs: [SinkSpec], options: SinkOptions, policy: RetryPolicy, service: String = "notifier") {
        let names = SinkSpec.names(specs)
        let sinks = zip(names, specs).map { name, spec in
            (name: name, make: { @Sendable () throws -> any NotificationSink in try spec.makeSink(name: name, options: options) })
        }
        self.init(directory: directory, sinks: sinks, policy: policy, service: service)
    }

    public func start() {
        workers.forEach { $0.start() }
        checkpointer.start()
    }

    public func wake() { workers.forEach { $0.wake() } }

    /// Lets the writer's connection tell the checkpointer when the log has grown.
    public func watchLog(of outbox: Outbox) {
        let checkpointer = self.checkpointer
        outbox.watchLog { checkpointer.logGrew(to: $0) }
    }

    /// Hands a just-committed notification to every sink: an idle inline sink gets it on
    /// this thread and its `notify.<sink>` record is returned for publishing now; the other
    /// workers are woken. Runtime thread only; `outbox` is that thread's connection.
    public func dispatch(_ record: NotificationRecord, seq: Int64, outbox: Outbox) -> [Outbound] {
        dispatch([(seq, record)], outbox: outbox)
    }

    /// The same for just-committed notifications in outbox order: an idle inline sink takes
    /// them all in one delivery (one write for a file sink), and its cursor moves once.
    public func dispatch(_ records: [(seq: Int64, record: NotificationRecord)], outbox: Outbox) -> [Outbound] {
        var output: [Outbound] = []
        for worker in workers {
            let (outbounds, complete) = worker.deliverInline(records, outbox: outbox)
            output += outbounds
            if !complete { worker.wake() }
        }
        return output
    }

    /// Sends records and problems to the runtime as they happen (bus mode), so a delivery is
    /// on `notify.<sink>` within the loop's next wake-up rather than the next tick. `drain`
    /// turns this off, so what is reported while finishing is still taken by `takeReports`.
    public func publishReports(through injector: Injector) {
        reports.setForward { injector.publish($0) }
    }

    /// Records and problems from the workers since the last call (runtime thread).
    public func takeReports() -> [Outbound] { reports.take() }

    public var counters: [String: Int] { reports.counters }

    /// A sink worker's current outbox fault (its cursor cannot be read or written), if any.
    public var outboxFault: String? { reports.outboxFault }

    /// Waits until every sink handled everything stored so far, or the timeout; true when drained.
    @discardableResult
    public func drain(timeoutSeconds: Double) -> Bool {
        reports.setForward(nil)
        wake()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if workers.allSatisfy(\.isDrained) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return workers.allSatisfy(\.isDrained)
    }

    public func stop(timeoutSeconds: Double = 2) {
        workers.forEach { $0.stop(timeoutSeconds: timeoutSeconds) }
        checkpointer.stop(timeoutSeconds: timeoutSeconds)
    }
}
