import CNATS
import Foundation
import LocusProtocol
import LocusService

/// Everything a service subscribes to, on NATS: a durable pull consumer per prefix whose
/// topics a stream keeps for consumers (positions, events, commands), each read by a fetch
/// loop on its own thread; a plain subscription for the rest, after the stored last value
/// of every subject under a last-value prefix (a late joiner's first view). What arrives
/// waits in one `ReceivedQueue` for the runtime's thread.
final class NATSReceiver: @unchecked Sendable {
    private let connection: NATSConnection
    let queue = ReceivedQueue()
    /// Durable consumers (index = `ReceivedQueue.Item.consumer`).
    private var consumers: [NATSConsumer] = []
    private var plain: [OpaquePointer] = []
    private let partition: Shard?
    private let log: ServiceLog
    private let stopping = NSCondition()
    private var stopped = false
    private var threads: [Thread] = []
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    init(connection: NATSConnection, service: String, instance: String, prefixes: [String], partition: Shard?,
         delivery: FixDelivery = .durable, log: ServiceLog) throws(NATSError) {
        self.connection = connection
        self.partition = partition
        self.log = log
        for prefix in prefixes {
            switch StreamLayout.route(forPrefix: prefix, delivery: delivery) {
            case .durable(let stream):
                var filter = SubjectMapping.filters(forPrefix: prefix)[0]
                if let partition, SubjectMapping.partitionedPrefixes.contains(prefix) {
                    filter = SubjectMapping.partitionFilter(forPrefix: prefix, partition: partition.index)
                }
                let name = StreamLayout.consumerName(service: service, instance: instance, prefix: prefix)
                consumers.append(try NATSConsumer(connection: connection, stream: stream.name, durable: name, filter: filter,
                                                  start: StreamLayout.start(forPrefix: prefix)))
            case .lastValue(let stream):
                for filter in SubjectMapping.filters(forPrefix: prefix) {
                    try subscribePlain(filter)
                    let catchUp = Thread { [self] in readLastValues(stream: stream.name, filter: filter) }
                    catchUp.name = "nats-last-values"
                    threads.append(catchUp)
                }
            case .plain:
                for filter in SubjectMapping.filters(forPrefix: prefix) { try subscribePlain(filter) }
            case .live(let stream):
                // The servers deliver only this partition's positions; the stored last
                // values carry no partition token, so those are sorted out here.
                for filter in SubjectMapping.filters(forPrefix: prefix) {
                    var live = filter
                    if let partition, SubjectMapping.partitionedPrefixes.contains(prefix) {
                        live = SubjectMapping.partitionFilter(forPrefix: prefix, partition: partition.index)
                    }
                    try subscribePlain(live, serverPartitioned: live != filter)
                    let catchUp = Thread { [self] in
                        readLastValues(stream: stream.name, filter: StreamLayout.lastValueSubject(forSubject: filter), positions: true)
                    }
                    catchUp.name = "nats-last-values"
                    threads.append(catchUp)
                }
            }
        }
        for (index, consumer) in consumers.enumerated() {
            let thread = Thread { [self] in fetchLoop(consumer, index: index) }
            thread.name = "nats-fetch"
            threads.append(thread)
        }
        threads.forEach { $0.start() }
    }

    var readyFD: Int32 { queue.wakeup.readFD }

    var health: [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        var values = counts
        var dropped: Int64 = 0
        for subscription in plain {
            var count: Int64 = 0
            if natsSubscription_GetDropped(subscription, &count) == NATS_OK { dropped += count }
        }
        values["subscriberDropped"] = Int(dropped)
        return values
    }

    private func count(_ name: String, _ amount: Int = 1) {
        lock.lock()
        counts[name, default: 0] += amount
        lock.unlock()
    }

    // MARK: plain subscriptions

    /// - Parameter serverPartitioned: the filter names one server partition: every message is this instance's.
    private func subscribePlain(_ filter: String, serverPartitioned: Bool = false) throws(NATSError) {
        var subscription: OpaquePointer?
        let context = Unmanaged.passUnretained(self).toOpaque()
        let status = serverPartitioned
            ? natsConnection_Subscribe(&subscription, connection.connection, filter, { _, _, message, closure in
                guard let message, let closure else { return }
                Unmanaged<NATSReceiver>.fromOpaque(closure).takeUnretainedValue().receivedPartitioned(message)
            }, context)
            : natsConnection_Subscribe(&subscription, connection.connection, filter, { _, _, message, closure in
                guard let message, let closure else { return }
                Unmanaged<NATSReceiver>.fromOpaque(closure).takeUnretainedValue().receivedPlain(message)
            }, context)
        try check(status, "cannot subscribe to \(filter)")
        natsSubscription_SetPendingLimits(subscription, 1_000_000, 1 << 30)
        if let subscription { plain.append(subscription) }
    }

    private func receivedPlain(_ message: OpaquePointer) {
        defer { natsMsg_Destroy(message) }
        if let partition, !NATSPartition.accepts(subject: String(cString: natsMsg_GetSubject(message)), partition: partition) {
            count("otherPartition")
            return
        }
        queue.append([ReceivedQueue.Item(input: ReceivedQueue.decode(message, consumer: -1), consumer: -1, ackHandle: nil)])
    }

    private func receivedPartitioned(_ message: OpaquePointer) {
        defer { natsMsg_Destroy(message) }
        queue.append([ReceivedQueue.Item(input: ReceivedQueue.decode(message, consumer: -1), consumer: -1, ackHandle: nil)])
    }

    /// Reads each subject's stored last message under `filter` once (`NATSLastValues`);
    /// `positions`: last positions under `last.`, read as their position subjects, this partition's only.
    private func readLastValues(stream: String, filter: String, positions: Bool = false) {
        var batch: [ReceivedQueue.Item] = []
        do {
            try NATSLastValues.read(connection: connection, stream: stream, filter: filter) { message in
                var subject: String?
                if positions {
                    guard let position = StreamLayout.subject(forLastValueSubject: String(cString: natsMsg_GetSubject(message))) else { return }
                    if let partition, !NATSPartition.accepts(subject: position, partition: partition) { return }
                    subject = position
                }
                batch.append(ReceivedQueue.Item(input: ReceivedQueue.decode(message, consumer: -1, subject: subject), consumer: -1, ackHandle: nil))
            }
        } catch {
            log.warn(error.message)
        }
        count("lastValues", batch.count)
        queue.append(batch)
    }

    // MARK: durable consumers

    private func fetchLoop(_ consumer: NATSConsumer, index: Int) {
        var backOff = 0.1
        var seen = (gaps: 0, repeats: 0, dropped: 0)
        if consumer.unacknowledgedAtStart != 0 {
            // The servers' delivery point is past what the earlier run held: once they have
            // put it back for delivery it comes first, oldest first.
            let what = consumer.unacknowledgedAtStart > 0 ? "\(consumer.unacknowledgedAtStart) message(s) delivered to an earlier run were never acknowledged"
                : "the servers did not say whether an earlier run left messages unacknowledged"
            log.info("\(consumer.durable): \(what); waiting \(consumer.redeliveryPause) s for the servers to deliver them again, in order")
            count("unacknowledgedAtStart", max(1, consumer.unacknowledgedAtStart))
            waitWhileRunning(seconds: consumer.redeliveryPause)
        }
        while !isStopped {
            do {
                if consumer.order.stopped {
                    try consumer.subscribeAgain()
                }
                let batch = try consumer.fetch(maximum: 1024, timeoutMilliseconds: 500) { message, last in
                    ReceivedQueue.Item(input: ReceivedQueue.decode(message, consumer: index), consumer: index,
                                       ackHandle: last ? message : nil)
                }
                queue.append(batch)
                backOff = 0.1
                let now = (gaps: consumer.order.gaps, repeats: consumer.repeats, dropped: consumer.droppedAfterGap)
                if now != seen {
                    count("deliveryGaps", now.gaps - seen.gaps)
                    count("redelivered", now.repeats - seen.repeats)
                    count("droppedAfterGap", now.dropped - seen.dropped)
                }
                seen = now
                if consumer.order.stopped {
                    // Fetching on would only pull messages to drop; what is still on its way
                    // goes with the old subscription.
                    log.warn("\(consumer.durable): deliveries were lost on the way; waiting \(consumer.redeliveryPause) s for the servers to deliver them again, in order")
                    consumer.retireSubscription()
                    waitWhileRunning(seconds: consumer.redeliveryPause)
                }
            } catch {
                count("fetchErrors")
                log.warn("\(consumer.durable): \(error.message); again in \(backOff) s")
                waitWhileRunning(seconds: backOff)
                backOff = min(backOff * 2, 5)
            }
        }
    }

    /// Acknowledges, for each consumer, the newest message the runtime has handled (the
    /// consumers acknowledge all before it too).
    func acknowledge(_ handles: [Int: OpaquePointer]) {
        for (_, message) in handles {
            if natsMsg_Ack(message, nil) != NATS_OK { count("ackFailed") }
            natsMsg_Destroy(message)
        }
    }

    // MARK: stopping

    private var isStopped: Bool {
        stopping.lock()
        defer { stopping.unlock() }
        return stopped
    }

    private func waitWhileRunning(seconds: Double) {
        stopping.lock()
        if !stopped { _ = stopping.wait(until: Date().addingTimeInterval(seconds)) }
        stopping.unlock()
    }

    func close() {
        stopping.lock()
        stopped = true
        stopping.broadcast()
        stopping.unlock()
        for subscription in plain {
            natsSubscription_Unsubscribe(subscription)
        }
        while threads.contains(where: { $0.isExecuting }) { usleep(10_000) }
        for subscription in plain { natsSubscription_Destroy(subscription) }
        plain.removeAll()
        consumers.forEach { $0.close() }
    }
}
