import LocusService
import LocusProtocol
import LocusStore

/// Carries out what routing decided on the runtime thread's outbox connection, inside the
/// caller's transaction: the seen event id (de-duplication across restarts), the replay
/// point, the notifications and the destinations. Stored notifications wait in `stored`
/// until the caller has committed and hands them to the sinks.
struct OutboxWrites {
    let outbox: Outbox
    /// Every sink, for the `suppressed` record a suppression publishes on each.
    let sinkNames: [String]
    /// Notifications stored since the last commit, in outbox order.
    var stored: [(seq: Int64, record: NotificationRecord)] = []
    /// The notifier's counters for `health.notifier` (what was stored, dropped, rejected, replayed).
    var counts: [String: Int] = [:]

    /// Records the event id; false for a repeat (also one from before a restart). With
    /// `replayPoint`, an event on a replayed topic, the point the bus replays from after a
    /// restart moves to it.
    mutating func firstSighting(_ id: String, t: Double, replayPoint: Double?) throws(SQLiteError) -> Bool {
        if try outbox.markSeen(eventID: id, t: t) {
            if let replayPoint { try outbox.noteEventReceived(at: replayPoint) }
            return true
        }
        count("duplicates")
        return false
    }

    /// Writes `steps` in order; what they publish (suppressions, rejections) goes to
    /// `output`, about the message `ref` on `topic` at `t`.
    mutating func apply(_ steps: [RoutingStep], topic: String?, ref: String?, t: Double,
                        output: inout [Outbound]) throws(SQLiteError) {
        for step in steps {
            switch step {
            case .notify(let record):
                // Only a stored notification wakes the sinks: waking them for every message (a
                // thousand fused fixes a second) made each sink thread query the outbox each
                // time, contending for the database with this thread.
                if let seq = try outbox.store(record) {
                    count("notifications")
                    stored.append((seq, record))
                } else {
                    count("duplicates")
                }
            case .suppress(let record):
                count("suppressed")
                for sink in sinkNames {
                    let body = LocusProtocol.Notification(ref: record.ref, title: record.title, body: record.body, sink: sink,
                                                          status: .suppressed)
                    output.append(Outbound(topic: Topic.notify(sink), body: .notification(body), t: record.t))
                }
            case let .saveDestination(device, destination):
                try outbox.saveDestination(device: device, json: destination?.json())
            case let .reject(code, message):
                output.append(reject(code, message, topic: topic, ref: ref, t: t))
            case let .count(name, amount):
                count(name, by: amount)
            }
        }
    }

    /// An `error.notifier` report, counted as `rejected`.
    mutating func reject(_ code: String, _ message: String, topic: String?, ref: String?, t: Double) -> Outbound {
        count("rejected")
        let report = ErrorReport(code: code, message: message, topic: topic, ref: ref)
        return Outbound(topic: Topic.error(NotifierLogic.service), body: .error(report), t: t)
    }

    mutating func count(_ name: String, by amount: Int = 1) {
        counts[name, default: 0] += amount
    }
}
