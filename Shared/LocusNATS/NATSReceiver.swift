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

    init(connection: NATSConnection, service: String, instance: String, prefixes: [String], partition: Shard?, log: ServiceLog) throws(NATSError) {
        self.connection = connection
        self.partition = partition
        self.log = log
        for prefix in prefixes {
            switch StreamLayout.route(forPrefix: prefix) {
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

    private func subscribePlain(_ filter: String) throws(NATSError) {
        var subscription: OpaquePointer?
        let context = Unmanaged.passUnretained(self).toOpaque()
        try check(natsConnection_Subscribe(&subscription, connection.connection, filter, { _, _, message, closure in
            guard let message, let closure else { return }
            Unmanaged<NATSReceiver>.fromOpaque(closure).takeUnretainedValue().receivedPlain(message)
        }, context), "cannot subscribe to \(filter)")
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

    /// Reads each subject's stored last message under `filter` once, through a short-lived consumer.
    private func readLastValues(stream: String, filter: String) {
        var subscription: OpaquePointer?
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        var code = jsErrCode(0)
        let status: natsStatus = stream.withCString { name in
            options.Stream = name
            options.Config.DeliverPolicy = js_DeliverLastPerSubject
            options.Config.AckPolicy = js_AckNone
            return js_SubscribeSync(&subscription, connection.jetStream, filter, nil, &options, &code)
        }
        guard status == NATS_OK, let subscription else {
            log.warn("cannot read the last values of \(filter) from \(stream): \(NATSConnection.text(status))")
            return
        }
        defer {
            natsSubscription_Unsubscribe(subscription)
            natsSubscription_Destroy(subscription)
        }
        var batch: [ReceivedQueue.Item] = []
        while !isStopped {
            var message: OpaquePointer?
            guard natsSubscription_NextMsg(&message, subscription, 1000) == NATS_OK, let message else { break }
            defer { natsMsg_Destroy(message) }
            batch.append(ReceivedQueue.Item(input: ReceivedQueue.decode(message, consumer: -1), consumer: -1, ackHandle: nil))
            var meta: UnsafeMutablePointer<jsMsgMetaData>?
            let pending = natsMsg_GetMetaData(&meta, message) == NATS_OK ? meta?.pointee.NumPending ?? 0 : 0
            jsMsgMetaData_Destroy(meta)
            if pending == 0 { break }
        }
        count("lastValues", batch.count)
        queue.append(batch)
    }

    // MARK: durable consumers

    private func fetchLoop(_ consumer: NATSConsumer, index: Int) {
        var backOff = 0.1
        while !isStopped {
            do {
                let batch = try consumer.fetch(maximum: 1024, timeoutMilliseconds: 500) { message, last in
                    ReceivedQueue.Item(input: ReceivedQueue.decode(message, consumer: index), consumer: index,
                                       ackHandle: last ? message : nil)
                }
                queue.append(batch)
                backOff = 0.1
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
