import CZeroMQ
import Foundation
import LocusProvider
import LocusBroker
import LocusBus
import LocusProtocol

/// The isolation bench's cast: N app keys with K devices each (`dev-00000` …, fixed width so
/// no id extends another), a provider that publishes for all of them, a meter with the
/// service role, and the bus's keys.
struct BenchFleet {
    struct Client {
        var name: String
        var keys: CurveKeyPair
        var devices: [String]
    }

    let server: CurveKeyPair
    let publisherKeys: CurveKeyPair
    let meterPair: CurveKeyPair
    let clients: [Client]
    static let probeBody = Array(#"{"probe":true}"#.utf8)

    init(clients count: Int, scopes: Int) throws(CurveKeyError) {
        server = try CurveKeyPair.generate()
        publisherKeys = try CurveKeyPair.generate()
        meterPair = try CurveKeyPair.generate()
        var clients: [Client] = []
        for index in 0..<count {
            let devices = (0..<scopes).map { String(format: "dev-%06d", index * scopes + $0) }
            clients.append(Client(name: String(format: "app%05d", index), keys: try CurveKeyPair.generate(), devices: devices))
        }
        self.clients = clients
    }

    var meterKeys: CurveClientOptions { CurveClientOptions(keyPair: meterPair, serverPublicKey: server.publicKey) }
    var publisherOptions: CurveClientOptions { CurveClientOptions(keyPair: publisherKeys, serverPublicKey: server.publicKey) }
    func options(_ client: Client) -> CurveClientOptions { CurveClientOptions(keyPair: client.keys, serverPublicKey: server.publicKey) }

    /// Every app authorized always with full accuracy, as saved by the bus.
    var records: [String: ClientAuthorization] {
        var record = ClientAuthorization()
        record.status = .always
        record.accuracy = .full
        return Dictionary(uniqueKeysWithValues: clients.map { ($0.name, record) })
    }

    func authorization(scoped: Bool, stateDirectory: String) -> BrokerAuthorization {
        var entries = [
            AllowListEntry(name: "bench-provider", publicKey: publisherKeys.publicKey, roles: [.provider],
                           manifest: UsageManifest(), restricted: false, autoGrant: nil),
            AllowListEntry(name: "bench-meter", publicKey: meterPair.publicKey, roles: [.service],
                           manifest: UsageManifest(), restricted: false, autoGrant: nil),
        ]
        for client in clients {
            entries.append(AllowListEntry(name: client.name, publicKey: client.keys.publicKey, roles: [],
                                          manifest: UsageManifest(always: "bench"), restricted: false, autoGrant: nil,
                                          devices: scoped ? try? DeviceScope(parsing: client.devices) : nil))
        }
        return BrokerAuthorization(allowList: AllowList(entries: entries), serverKeys: server, stateDirectory: stateDirectory)
    }
}

/// The N client sockets on one thread: counts what each receives and checks it is one of its devices.
final class FleetDrain: @unchecked Sendable {
    private let fleet: BenchFleet
    private let scoped: Bool
    private let context: ZMQContext
    private let endpoint: String
    private let lock = NSLock()
    private var heardBy: Set<Int> = []
    private var total = 0
    private var wrong = 0
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)

    init(fleet: BenchFleet, scoped: Bool, context: ZMQContext, endpoint: String) {
        self.fleet = fleet
        self.scoped = scoped
        self.context = context
        self.endpoint = endpoint
    }

    var heard: Int { lock.lock(); defer { lock.unlock() }; return heardBy.count }
    var misdelivered: Int { lock.lock(); defer { lock.unlock() }; return wrong }

    func resetCounts() {
        lock.lock()
        total = 0
        wrong = 0
        lock.unlock()
    }

    func start() {
        let thread = Thread { [self] in
            defer { finished.signal() }
            do { try serve() } catch {
                if !((error as? ZMQError)?.isTerminated ?? false) { FileHandle.standardError.write(Data("locus bench bus: clients: \(error)\n".utf8)) }
            }
        }
        thread.start()
    }

    private func serve() throws(ZMQError) {
        var sockets: [ZMQSocket] = []
        defer { sockets.forEach { $0.close() } }
        var poller = Poller()
        var allowed: [Set<[UInt8]>] = []
        for client in fleet.clients {
            let socket = try ZMQSocket(context: context, type: .sub)
            try socket.setOption(ZMQ_RCVHWM, 0)
            try fleet.options(client).apply(to: socket)
            try socket.connect(endpoint)
            for prefix in scoped ? ["location.raw."] : client.devices.map({ "location.raw." + $0 }) { try socket.subscribe(prefix) }
            sockets.append(socket)
            poller.add(socket)
            allowed.append(Set(client.devices.map { Array(("location.raw." + $0).utf8) }))
        }
        while true {
            lock.lock()
            let stop = stopping
            lock.unlock()
            if stop { return }
            let readable = try poller.poll(timeoutMilliseconds: 100)
            var got = 0
            var bad = 0
            var probed: [Int] = []
            for index in readable.indices where readable[index] {
                while let frames = try sockets[index].receiveMultipart(dontWait: true) {
                    guard frames.count == 2 else { continue }
                    if !allowed[index].contains(frames[0]) { bad += 1 }
                    if frames[1] == BenchFleet.probeBody { probed.append(index) } else { got += 1 }
                }
            }
            lock.lock()
            total += got
            wrong += bad
            heardBy.formUnion(probed)
            lock.unlock()
        }
    }

    func waitUntilEveryClientHeard(timeoutSeconds: Double) -> Bool {
        let deadline = Date().timeIntervalSince1970 + timeoutSeconds
        while heard < fleet.clients.count {
            if Date().timeIntervalSince1970 > deadline { return false }
            usleep(20_000)
        }
        return true
    }

    func waitFor(total expected: Int, timeoutSeconds: Double) -> Bool {
        let deadline = Date().timeIntervalSince1970 + timeoutSeconds
        while true {
            lock.lock()
            let done = total >= expected
            lock.unlock()
            if done { return true }
            if Date().timeIntervalSince1970 > deadline { return false }
            usleep(10_000)
        }
    }

    func finish() {
        lock.lock()
        stopping = true
        lock.unlock()
        finished.wait()
    }
}

/// The provider: probes each client's first device until `go`, then `count` messages round the fleet's devices.
final class FleetPublisher: @unchecked Sendable {
    private let fleet: BenchFleet
    private let context: ZMQContext
    private let endpoint: String
    private let count: Int
    private let started = DispatchSemaphore(value: 0)
    private let probing = StopFlag()
    private let done = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(fleet: BenchFleet, context: ZMQContext, endpoint: String, count: Int) {
        self.fleet = fleet
        self.context = context
        self.endpoint = endpoint
        self.count = count
    }

    func start() {
        let thread = Thread { [self] in
            defer { finished.signal() }
            do {
                let socket = try ZMQSocket(context: context, type: .pub)
                defer {
                    done.wait()
                    socket.close()
                }
                try socket.setOption(ZMQ_SNDHWM, 0)
                try fleet.publisherOptions.apply(to: socket)
                try socket.connect(endpoint)
                let probes = fleet.clients.map { Array(("location.raw." + $0.devices[0]).utf8) }
                while !probing.isRaised {
                    for topic in probes {
                        try socket.send(topic, more: true)
                        try socket.send(BenchFleet.probeBody)
                    }
                    usleep(50_000)
                }
                let topics = fleet.clients.flatMap(\.devices).map { Array(("location.raw." + $0).utf8) }
                let body = BusBench.sampleBody()
                for index in 0..<count {
                    try socket.send(topics[index % topics.count], more: true)
                    try socket.send(body)
                }
            } catch {
                if !((error as? ZMQError)?.isTerminated ?? false) {
                    FileHandle.standardError.write(Data("locus bench bus: provider: \(error)\n".utf8))
                }
            }
        }
        thread.start()
    }

    func go() { probing.raise() }

    func finish() {
        probing.raise()
        done.signal()
        finished.wait()
    }
}
