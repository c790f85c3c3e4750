import CNATS
import Foundation

/// One durable pull consumer: its name outlives the process, so a service started again
/// (here or on another host) continues after the last message it acknowledged.
final class NATSConsumer: @unchecked Sendable {
    let durable: String
    private let connection: NATSConnection
    private let stream: String
    private let filter: String
    /// The pull subscription fetches go through (the fetch thread's).
    private var subscription: OpaquePointer
    /// Subscriptions left after a lost delivery: unsubscribed, kept until `close` because
    /// messages handed on from them may still be acknowledged through them.
    private var retired: [OpaquePointer] = []
    /// How long the servers wait for an acknowledgement before delivering a message again
    /// (for consumers made here; `acknowledgementWait` is the consumer's own).
    static let acknowledgementWaitSeconds = 5.0
    /// The consumer's acknowledgement wait, in seconds.
    private(set) var acknowledgementWait = NATSConsumer.acknowledgementWaitSeconds
    /// Messages delivered to an earlier run and never acknowledged, when this one started
    /// (-1: the servers did not say).
    private(set) var unacknowledgedAtStart = 0
    /// Stream order, nothing skipped (read and changed by the fetch thread only).
    private(set) var order = DeliveryOrder()
    /// Messages dropped as repeats, and as overtaking a lost delivery.
    private(set) var repeats = 0
    private(set) var droppedAfterGap = 0

    init(connection: NATSConnection, stream: String, durable: String, filter: String, start: StreamLayout.Start) throws(NATSError) {
        self.durable = durable
        var config = jsConsumerConfig()
        jsConsumerConfig_Init(&config)
        var code = jsErrCode(0)
        // The consumer is made here rather than by the subscribe call, so that closing the
        // subscription never deletes it (cnats deletes consumers it created itself).
        let added: natsStatus = durable.withCString { name in
            filter.withCString { subject in
                config.Durable = name
                config.FilterSubject = subject
                // Acknowledging a message acknowledges every earlier one: one ack per batch.
                config.AckPolicy = js_AckAll
                config.AckWait = Int64(Self.acknowledgementWaitSeconds * 1e9)
                config.MaxAckPending = 65_536
                switch start {
                case .everything: config.DeliverPolicy = js_DeliverAll
                case .lastPerSubject: config.DeliverPolicy = js_DeliverLastPerSubject
                case .new: config.DeliverPolicy = js_DeliverNew
                }
                return js_AddConsumer(nil, connection.jetStream, stream, &config, nil, &code)
            }
        }
        guard added == NATS_OK || code == JSConsumerNameExistErr else {
            throw NATSError("cannot create consumer \(durable) on \(stream) for \(filter): \(NATSConnection.text(added))"
                            + (code.rawValue != 0 ? " (JetStream error \(code.rawValue); a consumer of that name with other settings must be deleted first, docs/nats.md)" : ""))
        }
        self.connection = connection
        self.stream = stream
        self.filter = filter
        subscription = try Self.subscribe(connection: connection, stream: stream, durable: durable, filter: filter)
        // Whether an earlier run died holding deliveries decides where this one may begin, so
        // the answer is waited for (the servers may be electing a consumer leader); without
        // one, the safe assumption is that it did.
        var known = false
        for attempt in 1...20 {
            var info: UnsafeMutablePointer<jsConsumerInfo>?
            if js_GetConsumerInfo(&info, connection.jetStream, stream, durable, nil, &code) == NATS_OK, let info {
                if let wait = info.pointee.Config?.pointee.AckWait, wait > 0 { acknowledgementWait = Double(wait) / 1e9 }
                unacknowledgedAtStart = Int(info.pointee.NumAckPending)
                jsConsumerInfo_Destroy(info)
                known = true
                break
            }
            if attempt < 20 { usleep(250_000) }
        }
        if !known { unacknowledgedAtStart = -1 }
    }

    private static func subscribe(connection: NATSConnection, stream: String, durable: String, filter: String) throws(NATSError) -> OpaquePointer {
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        var code = jsErrCode(0)
        var subscription: OpaquePointer?
        let status: natsStatus = stream.withCString { name in
            durable.withCString { consumer in
                options.Stream = name
                options.Consumer = consumer
                return js_PullSubscribe(&subscription, connection.jetStream, filter, durable, nil, &options, &code)
            }
        }
        guard status == NATS_OK, let subscription else {
            throw NATSError("cannot open consumer \(durable) on \(stream) for \(filter): \(NATSConnection.text(status))"
                            + (code.rawValue != 0 ? " (JetStream error \(code.rawValue))" : ""))
        }
        return subscription
    }

    /// After a lost delivery: stops this subscription (what is still on its way to it is
    /// dropped with it). Fetching resumes with `subscribeAgain` after `redeliveryPause`.
    func retireSubscription() {
        natsSubscription_Unsubscribe(subscription)
        retired.append(subscription)
    }

    /// A new subscription to the same durable consumer; the next delivery is taken as it comes.
    func subscribeAgain() throws(NATSError) {
        subscription = try Self.subscribe(connection: connection, stream: stream, durable: durable, filter: filter)
        order.resume()
    }

    /// How long to wait, after the last delivery this consumer may not have seen, until the
    /// servers have put every such message back for delivery (its acknowledgement wait, and
    /// the fetch's own expiry with a margin).
    var redeliveryPause: Double { acknowledgementWait + 1.5 }

    /// Fetches up to `maximum` messages, waiting at most `timeoutMilliseconds` for the first,
    /// and keeps those `DeliveryOrder` hands on; `make` turns each into a queue item (`last`:
    /// the newest kept, whose item takes the message for its acknowledgement; the others
    /// are destroyed).
    func fetch(maximum: Int, timeoutMilliseconds: Int64,
               _ make: (OpaquePointer, _ last: Bool) -> ReceivedQueue.Item) throws(NATSError) -> [ReceivedQueue.Item] {
        var list = natsMsgList()
        var code = jsErrCode(0)
        let status = natsSubscription_Fetch(&list, subscription, Int32(maximum), timeoutMilliseconds, &code)
        if status == NATS_TIMEOUT { return [] }
        guard status == NATS_OK else {
            throw NATSError("fetch failed: \(NATSConnection.text(status))")
        }
        defer { natsMsgList_Destroy(&list) }
        guard let messages = list.Msgs else { return [] }
        var kept: [OpaquePointer] = []
        kept.reserveCapacity(Int(list.Count))
        for index in 0..<Int(list.Count) {
            guard let message = messages[index] else { continue }
            var meta: UnsafeMutablePointer<jsMsgMetaData>?
            guard natsMsg_GetMetaData(&meta, message) == NATS_OK, let sequence = meta?.pointee.Sequence else {
                jsMsgMetaData_Destroy(meta)
                kept.append(message)  // not a JetStream message: nothing to order
                messages[index] = nil
                continue
            }
            jsMsgMetaData_Destroy(meta)
            switch order.judge(delivery: sequence.Consumer, stream: sequence.Stream) {
            case .next:
                kept.append(message)
                messages[index] = nil  // the list no longer destroys it
            case .repeated: repeats += 1
            case .afterGap: droppedAfterGap += 1
            }
        }
        var items: [ReceivedQueue.Item] = []
        items.reserveCapacity(kept.count)
        for (index, message) in kept.enumerated() {
            let last = index == kept.count - 1
            items.append(make(message, last))
            if !last { natsMsg_Destroy(message) }  // kept by its item until acknowledged
        }
        return items
    }

    func close() {
        // Only the local subscriptions go; the durable consumer stays on the servers.
        natsSubscription_Destroy(subscription)
        retired.forEach { natsSubscription_Destroy($0) }
        retired.removeAll()
    }
}
