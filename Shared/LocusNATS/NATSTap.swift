import CNATS
import Foundation
import LocusService

/// What a person's command sees of the bus on NATS (`locus tail`, `locus doctor`): plain
/// subscriptions to topic prefixes, after the stored last value of every subject under a
/// prefix the last-value stream keeps (as the ZeroMQ bus replays its cache to a new
/// subscriber). Messages come as topic and raw body; `readyFD` turns readable when some wait.
/// No durable consumer is made: watching leaves no trace on the servers.
public final class NATSTap: @unchecked Sendable {
    public struct Received: Sendable {
        public var topic: String
        public var body: [UInt8]
    }

    private let connection: NATSConnection
    private var subscriptions: [OpaquePointer] = []
    private let lock = NSLock()
    private var waiting: [Received] = []
    private let wakeup = Wakeup()
    /// Subjects that are not Locus topics (a broken escape), skipped.
    public private(set) var skipped = 0

    public init(connection: NATSConnection, prefixes: [String]) throws(NATSError) {
        self.connection = connection
        self.prefixes = prefixes
        for prefix in prefixes {
            for filter in SubjectMapping.filters(forPrefix: prefix) {
                var subscription: OpaquePointer?
                let context = Unmanaged.passUnretained(self).toOpaque()
                try check(natsConnection_Subscribe(&subscription, connection.connection, filter, { _, _, message, closure in
                    guard let message, let closure else { return }
                    defer { natsMsg_Destroy(message) }
                    Unmanaged<NATSTap>.fromOpaque(closure).takeUnretainedValue().take(message)
                }, context), "cannot subscribe to \(filter)")
                if let subscription {
                    natsSubscription_SetPendingLimits(subscription, 1_000_000, 1 << 30)
                    subscriptions.append(subscription)
                }
            }
        }
    }

    private let prefixes: [String]

    /// Reads the stored last value of every subject under the prefixes (after subscribing, so
    /// nothing published meanwhile is missed; a value may then come twice, and a reader drops
    /// repeats by id). Throws when the servers do not answer; the live messages still come.
    public func readLastValues() throws(NATSError) {
        for prefix in prefixes {
            for stream in StreamLayout.all where stream.maximumPerSubject == 1 {
                for filter in Self.storedFilters(prefix: prefix, stream: stream) {
                    try NATSLastValues.read(connection: connection, stream: stream.name, filter: filter) { take($0) }
                }
            }
            // With --fix-delivery plain, each device's last position (absent otherwise: skipped).
            for filter in Self.storedFilters(prefix: prefix, stream: StreamLayout.fixes) {
                try? NATSLastValues.read(connection: connection, stream: StreamLayout.lastFixes.name,
                                         filter: StreamLayout.lastValueSubject(forSubject: filter)) { message in
                    take(message, subject: StreamLayout.subject(forLastValueSubject: String(cString: natsMsg_GetSubject(message))))
                }
            }
        }
    }

    /// The filters of `stream` that a subscription to `prefix` covers: the stream's own
    /// subjects under a broad prefix (`""`, `location.`), the prefix's filter under a narrow one.
    static func storedFilters(prefix: String, stream: StreamLayout.Stream) -> [String] {
        stream.prefixes.compactMap { stored in
            if stored.hasPrefix(prefix) { return SubjectMapping.filters(forPrefix: stored)[0] }
            if prefix.hasPrefix(stored) { return SubjectMapping.filters(forPrefix: prefix)[0] }
            return nil
        }
    }

    /// - Parameter given: the subject the message stands for (a stored last position's), else its own.
    private func take(_ message: OpaquePointer, subject given: String? = nil) {
        let subject = given ?? String(cString: natsMsg_GetSubject(message))
        guard let topic = SubjectMapping.topic(forSubject: subject) else {
            lock.lock()
            skipped += 1
            lock.unlock()
            return
        }
        let length = Int(natsMsg_GetDataLength(message))
        let body = natsMsg_GetData(message).map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
        lock.lock()
        let wasEmpty = waiting.isEmpty
        waiting.append(Received(topic: topic, body: body))
        lock.unlock()
        if wasEmpty { wakeup.signal() }
    }

    public var readyFD: Int32 { wakeup.readFD }

    /// Everything that arrived, in arrival order.
    public func drain() -> [Received] {
        wakeup.clear()
        lock.lock()
        defer { lock.unlock() }
        let taken = waiting
        waiting.removeAll()
        return taken
    }

    public func close() {
        for subscription in subscriptions {
            natsSubscription_Unsubscribe(subscription)
            natsSubscription_Destroy(subscription)
        }
        subscriptions.removeAll()
    }
}
