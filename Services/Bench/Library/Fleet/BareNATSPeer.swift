import CNATS
import Foundation

/// The peers of `locus bench fleet`: bare cnats on the same cluster, with the same encoded
/// fix bodies and no Locus in the path —
/// - plain: one connection publishes, another (subscribed) receives every message;
/// - JetStream: publishes confirmed asynchronously into a stream with 3 replicas (R3), and
///   with one (R1), read back through a pull consumer, acknowledged per fetch, as Locus's
///   services read.
enum BareNATSPeer {
    struct Figures {
        var plainPerSecond: Double
        var plainLost: Int
        var jetStreamPerSecond: Double
        var jetStreamR1PerSecond: Double
    }

    static func measure(endpoint: String, bodies: [[UInt8]]) throws -> Figures {
        let url = endpoint.split(separator: ",").first.map(String.init) ?? endpoint
        let plain = try plainRun(url: url, bodies: bodies)
        let jetStream = try jetStreamRun(url: url, bodies: bodies, replicas: 3)
        let single = try jetStreamRun(url: url, bodies: bodies, replicas: 1)
        return Figures(plainPerSecond: plain.rate, plainLost: plain.lost, jetStreamPerSecond: jetStream, jetStreamR1PerSecond: single)
    }

    private final class Counter: @unchecked Sendable {
        let lock = NSCondition()
        var count = 0
    }

    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private static func connect(_ url: String) throws -> OpaquePointer {
        var options: OpaquePointer?
        natsOptions_Create(&options)
        defer { natsOptions_Destroy(options) }
        natsOptions_SetURL(options, url)
        natsOptions_SetMaxPendingMsgs(options, 10_000_000)
        var connection: OpaquePointer?
        guard natsConnection_Connect(&connection, options) == NATS_OK, let connection else {
            throw GeofenceBusRun.BenchError("bare cnats cannot connect to \(url)")
        }
        return connection
    }

    private static func plainRun(url: String, bodies: [[UInt8]]) throws -> (rate: Double, lost: Int) {
        let publisher = try connect(url), subscriber = try connect(url)
        defer {
            natsConnection_Destroy(publisher)
            natsConnection_Destroy(subscriber)
        }
        let counter = Counter()
        var subscription: OpaquePointer?
        natsConnection_Subscribe(&subscription, subscriber, "bench.plain.>", { _, _, message, closure in
            natsMsg_Destroy(message)
            let counter = Unmanaged<Counter>.fromOpaque(closure!).takeUnretainedValue()
            counter.lock.lock()
            counter.count += 1
            if counter.count % 1024 == 0 { counter.lock.signal() }
            counter.lock.unlock()
        }, Unmanaged.passUnretained(counter).toOpaque())
        defer { natsSubscription_Destroy(subscription) }
        natsSubscription_SetPendingLimits(subscription, 10_000_000, 4 << 30)
        natsConnection_Flush(subscriber)
        let start = Date().timeIntervalSince1970
        for (number, body) in bodies.enumerated() {
            body.withUnsafeBytes { _ = natsConnection_Publish(publisher, "bench.plain.d\(number % 10_000)", $0.baseAddress, Int32($0.count)) }
        }
        natsConnection_Flush(publisher)
        let deadline = Date().addingTimeInterval(60)
        counter.lock.lock()
        while counter.count < bodies.count && Date() < deadline {
            _ = counter.lock.wait(until: Date().addingTimeInterval(0.05))
        }
        let received = counter.count
        counter.lock.unlock()
        // No callback may run once this returns (the counter goes with it).
        natsSubscription_Unsubscribe(subscription)
        natsConnection_Flush(subscriber)
        return (Double(received) / (Date().timeIntervalSince1970 - start), bodies.count - received)
    }

    private static func jetStreamRun(url: String, bodies: [[UInt8]], replicas: Int) throws -> Double {
        let connection = try connect(url)
        defer { natsConnection_Destroy(connection) }
        var js: OpaquePointer?
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.PublishAsync.MaxPending = 65_536
        guard natsConnection_JetStream(&js, connection, &jsOptions) == NATS_OK, let js else { throw GeofenceBusRun.BenchError("no JetStream") }
        defer { jsCtx_Destroy(js) }
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        var code = jsErrCode(0)
        let subjects = strdup("bench.js.>")
        defer { free(subjects) }
        var subjectList: [UnsafePointer<CChar>?] = [UnsafePointer(subjects)]
        let added: natsStatus = subjectList.withUnsafeMutableBufferPointer { list in
            "BENCH_PEER".withCString { name in
                config.Name = name
                config.Subjects = list.baseAddress
                config.SubjectsLen = 1
                config.Storage = js_FileStorage
                config.Replicas = Int64(replicas)
                return js_AddStream(nil, js, &config, nil, &code)
            }
        }
        guard added == NATS_OK else { throw GeofenceBusRun.BenchError("cannot create the peer's stream") }
        var subscription: OpaquePointer?
        var subscribeOptions = jsSubOptions()
        jsSubOptions_Init(&subscribeOptions)
        subscribeOptions.Config.AckPolicy = js_AckAll  // one acknowledgement per fetch, as Locus's services
        subscribeOptions.Config.MaxAckPending = 65_536  // as Locus's consumers: a fetch of 1024 never waits for acknowledgements
        guard js_PullSubscribe(&subscription, js, "bench.js.>", "peer", nil, &subscribeOptions, &code) == NATS_OK, let subscription else {
            throw GeofenceBusRun.BenchError("cannot create the peer's consumer")
        }
        defer { natsSubscription_Destroy(subscription) }
        let pull = Handle(pointer: subscription)
        let total = bodies.count
        let counter = Counter()
        let reader = Thread {
            while true {
                counter.lock.lock()
                let done = counter.count >= total
                counter.lock.unlock()
                if done { return }
                var list = natsMsgList()
                var code = jsErrCode(0)
                guard natsSubscription_Fetch(&list, pull.pointer, 1024, 500, &code) == NATS_OK, list.Count > 0 else {
                    natsMsgList_Destroy(&list)
                    continue
                }
                natsMsg_Ack(list.Msgs[Int(list.Count) - 1], nil)
                counter.lock.lock()
                counter.count += Int(list.Count)
                counter.lock.unlock()
                natsMsgList_Destroy(&list)
            }
        }
        let start = Date().timeIntervalSince1970
        reader.start()
        for (number, body) in bodies.enumerated() {
            var message: OpaquePointer?
            body.withUnsafeBytes { _ = natsMsg_Create(&message, "bench.js.d\(number % 10_000)", nil, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count)) }
            js_PublishMsgAsync(js, &message, nil)
            natsMsg_Destroy(message)
            if number % 8192 == 8191 {
                var wait = jsPubOptions()
                jsPubOptions_Init(&wait)
                wait.MaxWait = 30_000
                js_PublishAsyncComplete(js, &wait)
            }
        }
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            counter.lock.lock()
            let done = counter.count >= total
            counter.lock.unlock()
            if done { break }
            usleep(5_000)
        }
        let seconds = Date().timeIntervalSince1970 - start
        while reader.isExecuting { usleep(10_000) }
        // Every acknowledgement in before the context goes: cnats must not answer a publish it has freed.
        var settle = jsPubOptions()
        jsPubOptions_Init(&settle)
        settle.MaxWait = 30_000
        js_PublishAsyncComplete(js, &settle)
        js_DeleteStream(js, "BENCH_PEER", nil, &code)
        return Double(total) / seconds
    }
}
