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
final class SinkWorker: @unchecked Sendable {
    let name: String
    private let makeSink: () throws -> any NotificationSink
    private let directory: URL
    private let policy: RetryPolicy
    private let reports: DeliveryReports
    private let service: String
    private let condition = NSCondition()
    private var stopping = false
    private var exited = false
    /// Bumped by `wake()`; the worker is drained when it found nothing after the latest bump.
    private var posted = 0
    private var checked = -1
    /// True while the worker waits with nothing left to deliver.
    private var idle = false
    private var thread: Thread?
    /// The worker's sink when it `deliversInline`, shared with the runtime thread (guarded by
    /// `condition`, used there only while the worker is idle).
    private var inlineSink: (any NotificationSink)?
    /// The newest outbox seq either side delivered (guarded by `condition`). The two move the
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
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "sink-\(name)"
        self.thread = thread
        thread.start()
    }

    /// New notifications are in the outbox.
    func wake() {
        condition.lock()
        posted += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Whether everything stored before the last `wake()` has been handled.
    var isDrained: Bool {
        condition.lock()
        defer { condition.unlock() }
        return checked >= posted || exited
    }

    /// Delivers `records` (stored at their seqs, in order) on the calling thread when the
    /// worker is idle and has nothing older to deliver, moves the cursor once through
    /// `outbox` (the caller's connection) and returns the `notify.<sink>` records to publish.
    /// `complete` is false when the worker must deliver the rest (busy, not an inline sink,
    /// or an attempt asked for a retry).
    func deliverInline(_ records: [(seq: Int64, record: NotificationRecord)], outbox: Outbox) -> (outbounds: [Outbound], complete: Bool) {
        condition.lock()
        defer { condition.unlock() }
        guard let sink = inlineSink, idle, checked >= posted, !stopping, !exited else { return ([], false) }
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
        condition.lock()
        stopping = true
        condition.broadcast()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while !exited && condition.wait(until: deadline) {}
        condition.unlock()
    }

    private func run() {
        defer {
            condition.lock()
            exited = true
            condition.broadcast()
            condition.unlock()
        }
        let sink: any NotificationSink
        let outbox: Outbox
        do {
            sink = try makeSink()
            outbox = try Outbox(directory: directory)
        } catch {
            problem("sinkStartFailed", "sink \(name) cannot start: \(error)", ref: nil, t: Date().timeIntervalSince1970)
            return
        }
        if sink.deliversInline {
            condition.lock()
            inlineSink = sink
            condition.unlock()
        }
        var attempt = 0
        var generator = SystemRandomNumberGenerator()
        while true {
            condition.lock()
            let generation = posted
            let stop = stopping
            condition.unlock()
            if stop { return }
            let next: (seq: Int64, record: NotificationRecord)?
            outbox.reopenIfMoved()
            do { next = try outbox.next(for: name) } catch {
                outboxFailed(error, ref: nil, t: Date().timeIntervalSince1970)
                pause(seconds: 1)
                continue
            }
            if let (seq, _) = next, seq <= delivered() {
                // Delivered inline already; only the cursor this connection read was behind.
                do {
                    try outbox.advance(sink: name, to: seq)
                    outboxWorks()
                } catch {
                    outboxFailed(error, ref: nil, t: Date().timeIntervalSince1970)
                    pause(seconds: 1)
                }
                continue
            }
            guard let (seq, record) = next else {
                outboxWorks()  // read, and nothing waits to be written
                condition.lock()
                checked = generation
                condition.broadcast()
                idle = true
                while posted == generation && !stopping { condition.wait() }
                idle = false
                condition.unlock()
                continue
            }
            let outcome = sink.deliver(record)
            switch outcome {
            case .delivered, .skipped, .failed:
                condition.lock()
                deliveredThrough = max(deliveredThrough, seq)
                condition.unlock()
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
                pause(seconds: policy.delaySeconds(attempt: attempt, unit: Double.random(in: 0..<1, using: &generator)))
            }
        }
    }

    /// `deliveredThrough`, read under its lock.
    private func delivered() -> Int64 {
        condition.lock()
        defer { condition.unlock() }
        return deliveredThrough
    }

    /// Waits for the backoff, waking early only to stop.
    private func pause(seconds: Double) {
        condition.lock()
        let deadline = Date().addingTimeInterval(seconds)
        while !stopping && condition.wait(until: deadline) {}
        condition.unlock()
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
