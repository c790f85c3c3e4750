import Foundation
import LocusService
import LocusProtocol

/// One thread per sink: it reads the sink's next notification from its own outbox
/// connection, delivers it, and moves the cursor only afterwards. A slow or dead sink
/// therefore delays only itself, and order per sink is the outbox order.
///
/// A sink that `deliversInline` is also given new notifications by the runtime thread
/// (`deliverInline`) while this worker is idle with nothing left: under the worker's lock,
/// so the two never deliver at once and the order stays the outbox order.
///
/// The thread, its stop and its lock are a `WorkerThread`, which also guards the state below
/// that the runtime thread shares with it.
final class SinkWorker: @unchecked Sendable {
    let name: String
    private let makeSink: () throws -> any NotificationSink
    private let directory: URL
    private let policy: RetryPolicy
    private let reports: DeliveryReports
    private let service: String
    private let thread: WorkerThread
    /// Bumped by `wake()`; the worker is drained when it found nothing after the latest bump.
    private var posted = 0
    private var checked = -1
    /// True while the worker waits with nothing left to deliver.
    private var idle = false
    /// The worker's sink when it `deliversInline`, shared with the runtime thread (guarded by
    /// the thread's lock, used there only while the worker is idle).
    private var inlineSink: (any NotificationSink)?
    /// The newest outbox seq either side delivered (guarded by the thread's lock). The two move the
    /// cursor on different connections, so each can find a record the other has just
    /// delivered: the worker can read the cursor from before an inline delivery, and the
    /// runtime can offer a record the worker took from the outbox before the runtime's
    /// dispatch reached it. Both skip what this covers instead of delivering it twice.
    private var deliveredThrough: Int64 = 0
    /// Whether the last outbox read or write of this worker failed (worker thread only).
    private var outboxFailing = false

    init(name: String, directory: URL, policy: RetryPolicy, reports: DeliveryReports, service: String,
         makeSink: @escaping () throws -> any NotificationSink) {
        self.name = name
        self.directory = directory
        self.policy = policy
        self.reports = reports
        self.service = service
        self.makeSink = makeSink
        thread = WorkerThread(name: "sink-\(name)")
    }

    func start() {
        thread.start { [self] in run() }
    }

    /// New notifications are in the outbox.
    func wake() {
        thread.locked {
            posted += 1
            thread.broadcastLocked()
        }
    }

    /// Whether everything stored before the last `wake()` has been handled.
    var isDrained: Bool {
        thread.locked { checked >= posted || thread.finished }
    }

    /// Delivers `records` (stored at their seqs, in order) on the calling thread when the
    /// worker is idle and has nothing older to deliver, moves the cursor once through
    /// `outbox` (the caller's connection) and returns the `notify.<sink>` records to publish.
    /// `complete` is false when the worker must deliver the rest (busy, not an inline sink,
    /// or an attempt asked for a retry).
    func deliverInline(_ records: [(seq: Int64, record: NotificationRecord)], outbox: Outbox) -> (outbounds: [Outbound], complete: Bool) {
        thread.locked { deliverInlineLocked(records, outbox: outbox) }
    }

    private func deliverInlineLocked(_ records: [(seq: Int64, record: NotificationRecord)], outbox: Outbox) -> (outbounds: [Outbound], complete: Bool) {
        guard let sink = inlineSink, idle, checked >= posted, !thread.stopRequested, !thread.finished else { return ([], false) }
        let fresh = records.filter { $0.seq > deliveredThrough }
        guard !fresh.isEmpty else { return ([], true) }
        let outcomes = sink.deliver(fresh.map(\.record))
        var outbounds: [Outbound] = []
        var through: Int64?
        for ((seq, record), outcome) in zip(fresh, outcomes) {
            if case .retry = outcome { break }
            through = seq
            let (outbound, counter) = report(record, outcome)
            reports.count(counter)
            outbounds.append(outbound)
        }
        if let through {
            deliveredThrough = through
            do { try outbox.advance(sink: name, to: through) } catch {
                problem("outboxFailed", "sink \(name): \(error)", ref: nil, t: fresh[0].record.t)
            }
        }
        return (outbounds, outbounds.count == fresh.count)
    }

    /// Asks the thread to stop after the current attempt and waits up to `timeoutSeconds` for it.
    func stop(timeoutSeconds: Double) {
        thread.stop(timeoutSeconds: timeoutSeconds)
    }

    private func run() {
        let sink: any NotificationSink
        let outbox: Outbox
        do {
            sink = try makeSink()
            outbox = try Outbox(directory: directory)
        } catch {
            problem("sinkStartFailed", "sink \(name) cannot start: \(error)", ref: nil, t: Date().timeIntervalSince1970)
            return
        }
        if sink.deliversInline { thread.locked { inlineSink = sink } }
        var attempt = 0
        var generator = SystemRandomNumberGenerator()
        while true {
            let (generation, stop) = thread.locked { (posted, thread.stopRequested) }
            if stop { return }
            let next: (seq: Int64, record: NotificationRecord)?
            outbox.reopenIfMoved()
            do { next = try outbox.next(for: name) } catch {
                outboxFailed(error, ref: nil, t: Date().timeIntervalSince1970)
                thread.pause(seconds: 1)
                continue
            }
            if let (seq, _) = next, seq <= delivered() {
                // Delivered inline already; only the cursor this connection read was behind.
                do {
                    try outbox.advance(sink: name, to: seq)
                    outboxWorks()
                } catch {
                    outboxFailed(error, ref: nil, t: Date().timeIntervalSince1970)
                    thread.pause(seconds: 1)
                }
                continue
            }
            guard let (seq, record) = next else {
                outboxWorks()  // read, and nothing waits to be written
                thread.locked {
                    checked = generation
                    thread.broadcastLocked()
                    idle = true
                    while posted == generation && !thread.stopRequested { thread.waitLocked() }
                    idle = false
                }
                continue
            }
            let outcome = sink.deliver(record)
            switch outcome {
            case .delivered, .skipped, .failed:
                thread.locked { deliveredThrough = max(deliveredThrough, seq) }
                // The record goes out before the cursor commit: the commit is not on the
                // event → notification path, and a crash between the two repeats the
                // delivery either way (the line is already written).
                publish(report(record, outcome))
                do {
                    try outbox.advance(sink: name, to: seq)
                    outboxWorks()
                } catch {
                    outboxFailed(error, ref: record.ref, t: record.t)
                }
                attempt = 0
            case .retry(let reason):
                attempt += 1
                publish(report(record, outcome))
                if attempt == 1 { problem("sinkUnavailable", "sink \(name): \(reason); retrying", ref: record.ref, t: record.t) }
                thread.pause(seconds: policy.delaySeconds(attempt: attempt, unit: Double.random(in: 0..<1, using: &generator)))
            }
        }
    }

    /// `deliveredThrough`, read under its lock.
    private func delivered() -> Int64 {
        thread.locked { deliveredThrough }
    }

    private func publish(_ report: (outbound: Outbound, counter: String)) {
        reports.add(report.outbound, counter: report.counter)
    }

    /// The `notify.<sink>` record of an attempt and the counter it bumps.
    private func report(_ record: NotificationRecord, _ outcome: DeliveryOutcome) -> (outbound: Outbound, counter: String) {
        let status: NotificationStatus
        let counter: String
        switch outcome {
        case .delivered: (status, counter) = (.delivered, "delivered")
        case .retry: (status, counter) = (.retrying, "retries")
        case .failed(let reason):
            (status, counter) = (.failed, "failed")
            problem("deliveryFailed", "sink \(name) gave up on \(record.id): \(reason)", ref: record.ref, t: record.t)
        case .skipped: (status, counter) = (.suppressed, "skipped")
        }
        let body = LocusProtocol.Notification(ref: record.ref, title: record.title, body: record.body, sink: name, status: status)
        return (Outbound(topic: Topic.notify(name), body: .notification(body), t: record.t), counter)
    }

    private func problem(_ code: String, _ message: String, ref: String?, t: Double, counter: String = "sinkErrors") {
        let report = ErrorReport(code: code, message: message, ref: ref)
        reports.add(Outbound(topic: Topic.error(service), body: .error(report), t: t), counter: counter)
    }

    /// The outbox could not be read or written (the cursor waits and is written again):
    /// reported once per streak, and the notifier is `degraded` until it works again.
    private func outboxFailed(_ error: any Error, ref: String?, t: Double) {
        outboxFailing = true
        if reports.outboxFailed(sink: name, "\(error)") {
            problem("outboxFailed", "sink \(name): \(error)", ref: ref, t: t, counter: "outboxErrors")
        }
    }

    private func outboxWorks() {
        guard outboxFailing else { return }
        outboxFailing = false
        reports.outboxWorks(sink: name)
    }
}
