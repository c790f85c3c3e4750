import Foundation
import LocusBus
import LocusProtocol

/// One thread per sink: it reads the sink's next notification from its own outbox
/// connection, delivers it, and moves the cursor only afterwards. A slow or dead sink
/// therefore delays only itself, and order per sink is the outbox order.
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
    private var thread: Thread?

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
        var attempt = 0
        var generator = SystemRandomNumberGenerator()
        while true {
            condition.lock()
            let generation = posted
            let stop = stopping
            condition.unlock()
            if stop { return }
            let next: (seq: Int64, record: NotificationRecord)?
            do { next = try outbox.next(for: name) } catch {
                problem("outboxFailed", "sink \(name): \(error)", ref: nil, t: Date().timeIntervalSince1970)
                pause(seconds: 1)
                continue
            }
            guard let (seq, record) = next else {
                condition.lock()
                checked = generation
                condition.broadcast()
                while posted == generation && !stopping { condition.wait() }
                condition.unlock()
                continue
            }
            let outcome = sink.deliver(record)
            switch outcome {
            case .delivered, .skipped, .failed:
                do { try outbox.advance(sink: name, to: seq) } catch {
                    problem("outboxFailed", "sink \(name): \(error)", ref: record.ref, t: record.t)
                }
                attempt = 0
                report(record, outcome)
            case .retry(let reason):
                attempt += 1
                report(record, outcome)
                if attempt == 1 { problem("sinkUnavailable", "sink \(name): \(reason); retrying", ref: record.ref, t: record.t) }
                pause(seconds: policy.delaySeconds(attempt: attempt, unit: Double.random(in: 0..<1, using: &generator)))
            }
        }
    }

    /// Waits for the backoff, waking early only to stop.
    private func pause(seconds: Double) {
        condition.lock()
        let deadline = Date().addingTimeInterval(seconds)
        while !stopping && condition.wait(until: deadline) {}
        condition.unlock()
    }

    private func report(_ record: NotificationRecord, _ outcome: DeliveryOutcome) {
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
        reports.add(Outbound(topic: Topic.notify(name), body: .notification(body), t: record.t), counter: counter)
    }

    private func problem(_ code: String, _ message: String, ref: String?, t: Double) {
        let report = ErrorReport(code: code, message: message, ref: ref)
        reports.add(Outbound(topic: Topic.error(service), body: .error(report), t: t), counter: "sinkErrors")
    }
}
