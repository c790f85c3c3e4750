import CNATS
import Foundation
import LocusProtocol
import LocusService

/// Where cnats's threads (subscription callbacks, consumer fetch loops) leave decoded
/// messages for the runtime's thread, with a pipe the runtime polls. A message from a
/// durable consumer keeps its acknowledgement handle until the runtime commits its batch.
final class ReceivedQueue: @unchecked Sendable {
    struct Item {
        var input: TransportInput
        /// The consumer it came from (an index into the receiver's consumers), or -1 for plain NATS.
        var consumer: Int
        /// The message to acknowledge for it (consumers acknowledge everything up to it).
        var ackHandle: OpaquePointer?
    }

    private let lock = NSLock()
    private var items: [Item] = []
    private var head = 0
    let wakeup = Wakeup()
    private(set) var received = 0

    func append(_ batch: [Item]) {
        guard !batch.isEmpty else { return }
        lock.lock()
        let wasEmpty = head == items.count
        items.append(contentsOf: batch)
        received += batch.count
        lock.unlock()
        if wasEmpty { wakeup.signal() }
    }

    /// Takes up to `limit` items in arrival order (runtime thread only). What is handed out
    /// never shares storage with the queue: a slice kept by the runtime while cnats's threads
    /// append made every append copy the whole queue (profiled: a tenth of the geofence's time).
    func take(upTo limit: Int) -> ArraySlice<Item> {
        wakeup.clear()
        lock.lock()
        defer { lock.unlock() }
        let end = min(items.count, head + limit)
        if end == items.count {
            let all = items
            let start = head
            items = []
            items.reserveCapacity(min(all.count, 4096))
            head = 0
            return all[start..<end]
        }
        let taken = ArraySlice(Array(items[head..<end]))
        head = end
        wakeup.signal()  // more waits: the runtime's poll comes back at once
        return taken
    }

    /// Decodes one received NATS message into a queue item (on the receiving thread).
    /// `subject` stands in for the message's own (a stored last position's).
    static func decode(_ message: OpaquePointer, consumer: Int, subject given: String? = nil) -> TransportInput {
        let subject = given ?? String(cString: natsMsg_GetSubject(message))
        guard let topic = SubjectMapping.topic(forSubject: subject) else {
            return .rejected(topic: nil, error: ProtocolError(code: .invalidTopic, message: "NATS subject '\(subject)' holds a broken escape"))
        }
        let length = Int(natsMsg_GetDataLength(message))
        guard let data = natsMsg_GetData(message) else {
            return .rejected(topic: topic, error: ProtocolError(code: .invalidJSON, message: "empty body"))
        }
        do {
            let decoded = try MessageCodec.decode(UnsafeRawBufferPointer(start: data, count: length))
            return .message(topic: topic, message: decoded)
        } catch {
            return .rejected(topic: topic, error: error)
        }
    }
}
