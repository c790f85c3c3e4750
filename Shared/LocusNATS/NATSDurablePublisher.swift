import CNATS
import Foundation

/// Publishes to JetStream without waiting for each acknowledgement, yet keeps the order in
/// which a stream stores what one service published: a message the servers refused or did
/// not answer (a leader was being elected, a node died) is sent again, with the others that
/// failed, in the order they were first published, and `confirm` reports success only when
/// every message published so far — re-sends included — is stored. The runtime publishes
/// nothing new before its batch is confirmed, so a re-sent message is never stored after a
/// newer one of a later batch (docs/nats.md, "Order under failures").
///
/// Each message carries its `Nats-Msg-Id`, so a re-send of one that had arrived is dropped
/// by the stream. cnats calls `acknowledged` on its own threads.
final class NATSDurablePublisher: @unchecked Sendable {
    /// What is known of one message while it is the publisher's.
    private struct Entry {
        var ordinal: UInt64
        var stream: String
    }

    /// Set once, right after the context that calls `handler` is made.
    var jetStream: OpaquePointer?
    private let waitMilliseconds: Int64
    private let condition = NSCondition()
    private var nextOrdinal: UInt64 = 0
    /// Published and not yet answered, by message address.
    private var inFlight: [UnsafeMutableRawPointer: Entry] = [:]
    /// Refused, lost or timed out: sent again, oldest first, at the next `confirm`.
    private var failed: [(entry: Entry, message: OpaquePointer)] = []
    /// The newest ordinal each stream has confirmed, to see a re-send land behind a newer message.
    private var newestConfirmed: [String: UInt64] = [:]
    private var resent = 0
    private var reordered = 0
    private var lastError = ""

    /// - Parameter waitMilliseconds: how long one publish waits for its acknowledgement before it counts as lost.
    init(waitMilliseconds: Int64 = 2000) {
        self.waitMilliseconds = waitMilliseconds
    }

    /// The context's acknowledgement handler (set in `jsOptions.PublishAsync` with this object as closure).
    static let handler: jsPubAckHandler = { _, message, _, failure, closure in
        guard let message, let closure else { return }
        Unmanaged<NATSDurablePublisher>.fromOpaque(closure).takeUnretainedValue()
            .acknowledged(message, error: failure.map { ($0.pointee.Err, $0.pointee.ErrText.map { String(cString: $0) } ?? "") })
    }

    /// Takes ownership of `message` (which carries its `Nats-Msg-Id`) and sends it.
    func publish(_ message: OpaquePointer, stream: String) {
        condition.lock()
        nextOrdinal += 1
        let entry = Entry(ordinal: nextOrdinal, stream: stream)
        condition.unlock()
        send(message, entry)
    }

    private func send(_ message: OpaquePointer, _ entry: Entry) {
        condition.lock()
        // Registered first: cnats may answer before `js_PublishMsgAsync` returns.
        inFlight[UnsafeMutableRawPointer(message)] = entry
        condition.unlock()
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = waitMilliseconds
        var pointer: OpaquePointer? = message
        let status = js_PublishMsgAsync(jetStream, &pointer, &options)
        if status != NATS_OK, pointer != nil {
            // Not taken by cnats: it is still ours, to send again.
            acknowledged(message, error: (status, NATSConnection.text(status)))
        }
    }

    private func acknowledged(_ message: OpaquePointer, error: (status: natsStatus, text: String)?) {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        guard let entry = inFlight.removeValue(forKey: UnsafeMutableRawPointer(message)) else { return }
        if let error {
            failed.append((entry, message))
            lastError = error.text
            return
        }
        natsMsg_Destroy(message)
        newestConfirmed[entry.stream] = max(newestConfirmed[entry.stream] ?? 0, entry.ordinal)
    }

    /// Messages sent again, re-sends stored behind a newer message, and the servers' last refusal.
    var report: (resent: Int, reordered: Int, lastError: String) {
        condition.lock()
        defer { condition.unlock() }
        return (resent, reordered, lastError)
    }

    var isIdle: Bool {
        condition.lock()
        defer { condition.unlock() }
        return inFlight.isEmpty && failed.isEmpty
    }

    /// Waits until every message published so far is stored, sending the failed ones again
    /// in their first order (after `pauseSeconds`, doubling, while they keep failing). False
    /// when `timeoutSeconds` pass first; what is outstanding stays for the next call.
    func confirm(timeoutSeconds: Double, pauseSeconds: Double = 0.05) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var pause = pauseSeconds
        condition.lock()
        while true {
            // Every answer first, so that all failures of this round go again together, in order.
            while !inFlight.isEmpty {
                if !condition.wait(until: deadline) {
                    condition.unlock()
                    return false
                }
            }
            if failed.isEmpty {
                condition.unlock()
                return true
            }
            let again = failed.sorted { $0.entry.ordinal < $1.entry.ordinal }
            failed.removeAll()
            for (entry, _) in again where entry.ordinal < newestConfirmed[entry.stream] ?? 0 {
                // A newer message of the same stream is already stored: this one lands behind it.
                reordered += 1
            }
            resent += again.count
            condition.unlock()
            // A refused publish usually means a leader is being elected: give it a moment.
            Thread.sleep(forTimeInterval: min(pause, max(0, deadline.timeIntervalSinceNow)))
            pause = min(pause * 2, 1)
            for (entry, message) in again { send(message, entry) }
            condition.lock()
            if Date() >= deadline && !inFlight.isEmpty {
                condition.unlock()
                return false
            }
        }
    }

    /// Destroys what was never confirmed (at close; the servers drop repeats when a restarted service sends it again).
    func discard() {
        condition.lock()
        for (_, message) in failed { natsMsg_Destroy(message) }
        failed.removeAll()
        condition.unlock()
    }
}
