import CZeroMQ
import Foundation
import LocusBroker
import LocusBus
import LocusProvider
import LocusService
import LocusProtocol

/// The best rate over rounds and the messages lost in all of them.
struct BenchFigure {
    var best = 0.0
    var lost = 0

    mutating func add(_ round: (rate: Double, lost: Int)) {
        best = max(best, round.rate)
        lost += round.lost
    }
}

enum BrokerKind: Hashable { case raw, locus }

/// How the bench's endpoints are reached.
enum BenchTransport: Hashable {
    case ipc, tcp

    func endpoints(directory: String) -> BusEndpoints? {
        switch self {
        case .ipc: return BusEndpoints(pub: "ipc://\(directory)/pub", sub: "ipc://\(directory)/sub")
        case .tcp:
            guard let pub = LoopbackPort.free(), let sub = LoopbackPort.free(), pub != sub else { return nil }
            return BusEndpoints(pub: "tcp://127.0.0.1:\(pub)", sub: "tcp://127.0.0.1:\(sub)")
        }
    }
}

/// One measured configuration: which broker, over what, and with CURVE keys or not.
struct BenchSetup: Hashable {
    var broker: BrokerKind
    var transport: BenchTransport
    var keys: BenchKeys?
}

/// Keys for a CURVE round: the bus, a publisher with the provider role (it sends
/// `location.raw.*`) and a subscriber with the service role (it may read them).
struct BenchKeys: Hashable {
    let server: CurveKeyPair
    let publisherPair: CurveKeyPair
    let subscriberPair: CurveKeyPair

    init() throws(CurveKeyError) {
        server = try CurveKeyPair.generate()
        publisherPair = try CurveKeyPair.generate()
        subscriberPair = try CurveKeyPair.generate()
    }

    var publisher: CurveClientOptions { CurveClientOptions(keyPair: publisherPair, serverPublicKey: server.publicKey) }
    var subscriber: CurveClientOptions { CurveClientOptions(keyPair: subscriberPair, serverPublicKey: server.publicKey) }

    /// What locus-bus needs for CURVE: the allow-list of the two bench clients and its keys.
    var brokerAuthorization: BrokerAuthorization {
        let list = AllowList(entries: [
            AllowListEntry(name: "bench-publisher", publicKey: publisherPair.publicKey, roles: [.provider],
                           manifest: UsageManifest(), restricted: false, autoGrant: nil),
            AllowListEntry(name: "bench-subscriber", publicKey: subscriberPair.publicKey, roles: [.service],
                           manifest: UsageManifest(), restricted: false, autoGrant: nil),
        ])
        return BrokerAuthorization(allowList: list, serverKeys: server)
    }

    static func == (a: BenchKeys, b: BenchKeys) -> Bool { a.server.publicKey == b.server.publicKey }
    func hash(into hasher: inout Hasher) { hasher.combine(server.publicKey) }
}

/// A tcp port on 127.0.0.1 that nothing listens on right now (the kernel's pick for port 0).
enum LoopbackPort {
    static func free() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}

