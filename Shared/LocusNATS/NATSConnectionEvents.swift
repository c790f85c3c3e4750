import CNATS
import Foundation

/// What happened to a connection, counted from cnats's callback threads and read by the
/// runtime for `health.<service>`.
final class NATSConnectionEvents: @unchecked Sendable {
    struct Counts {
        var disconnections = 0
        var reconnections = 0
        var resent = 0
        var asyncErrors = 0
        var slowConsumer = 0
    }

    private let lock = NSLock()
    private var counts = Counts()

    func count(_ field: WritableKeyPath<Counts, Int>) {
        lock.lock()
        counts[keyPath: field] += 1
        lock.unlock()
    }

    /// An error the client reports outside any call (a slow subscription, a permission refused).
    func asyncError(_ status: natsStatus) {
        count(status == NATS_SLOW_CONSUMER ? \.slowConsumer : \.asyncErrors)
        if status != NATS_SLOW_CONSUMER {
            FileHandle.standardError.write(Data("nats: \(NATSConnection.text(status))\n".utf8))
        }
    }

    func snapshot() -> [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        return ["natsDisconnections": counts.disconnections, "natsReconnections": counts.reconnections,
                "resent": counts.resent, "natsErrors": counts.asyncErrors, "slowConsumer": counts.slowConsumer]
    }
}

/// JetStream publishes to send again, handed over by cnats's error callback.
final class NATSFailedPublishes: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [OpaquePointer] = []

    func add(_ message: OpaquePointer) {
        lock.lock()
        messages.append(message)
        lock.unlock()
    }

    var isEmpty: Bool {
        lock.lock()
        defer { lock.unlock() }
        return messages.isEmpty
    }

    func takeAll() -> [OpaquePointer] {
        lock.lock()
        defer { lock.unlock() }
        let taken = messages
        messages.removeAll()
        return taken
    }
}
