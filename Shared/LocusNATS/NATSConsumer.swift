import CNATS
import Foundation

/// One durable pull consumer: its name outlives the process, so a service started again
/// (here or on another host) continues after the last message it acknowledged.
final class NATSConsumer: @unchecked Sendable {
    let durable: String
    private let subscription: OpaquePointer

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
                config.AckWait = 30 * 1_000_000_000
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
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
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
        self.subscription = subscription
    }

    /// Fetches up to `maximum` messages, waiting at most `timeoutMilliseconds` for the first;
    /// `make` turns each into a queue item (`last`: it is the newest of this fetch, and the
    /// item takes the message for its acknowledgement; the others are destroyed).
    func fetch(maximum: Int, timeoutMilliseconds: Int64,
               _ make: (OpaquePointer, _ last: Bool) -> ReceivedQueue.Item) throws(NATSError) -> [ReceivedQueue.Item] {
        var list = natsMsgList()
        var code = jsErrCode(0)
        let status = natsSubscription_Fetch(&list, subscription, Int32(maximum), timeoutMilliseconds, &code)
        if status == NATS_TIMEOUT { return [] }
        guard status == NATS_OK else {
            throw NATSError("fetch failed: \(NATSConnection.text(status))")
        }
        var items: [ReceivedQueue.Item] = []
        items.reserveCapacity(Int(list.Count))
        if let messages = list.Msgs {
            let count = Int(list.Count)
            for index in 0..<count {
                guard let message = messages[index] else { continue }
                let last = index == count - 1
                items.append(make(message, last))
                if last { messages[index] = nil }  // kept by its item until acknowledged
            }
        }
        natsMsgList_Destroy(&list)
        return items
    }

    func close() {
        // Only the local subscription goes; the durable consumer stays on the servers.
        natsSubscription_Destroy(subscription)
    }
}
