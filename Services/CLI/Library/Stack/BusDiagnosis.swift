import Foundation
import LocusBus
import LocusProtocol

/// Why a bus command got no answer, in words a person can act on: nothing listens at the
/// endpoint, something listens but is no Locus authority, or the authority stayed silent.
/// `locus auth` and `locus regions` say which instead of only "timed out".
struct BusDiagnosis {
    let endpoints: BusEndpoints
    /// The bus's own `health.bus` seen during the exchange (the cache replays it at once).
    private(set) var busHealth: Health?

    init(endpoints: BusEndpoints) {
        self.endpoints = endpoints
    }

    /// The prefix to subscribe beside the exchange's own, so the bus identifies itself.
    static let healthPrefix = Topic.health("bus")

    /// A missing ipc socket means no bus, known at once (a connect to it would wait for ever).
    static func missingSocket(_ endpoints: BusEndpoints) -> String? {
        for endpoint in [endpoints.pub, endpoints.sub] where endpoint.hasPrefix("ipc://") {
            let path = String(endpoint.dropFirst("ipc://".count))
            if !FileManager.default.fileExists(atPath: path) {
                return "no bus at \(endpoint) (no socket there; start one with `locus up`)"
            }
        }
        return nil
    }

    static func notConnected(_ endpoints: BusEndpoints, seconds: Double) -> String {
        "no bus at \(endpoints.pub): nothing accepted the connection within \(seconds) s (start one with `locus up`)"
    }

    /// Notes what the bus said about itself; returns true when the message was its health.
    mutating func observe(topic: String, message: Message) -> Bool {
        guard topic == Self.healthPrefix, case .health(let health) = message.body else { return false }
        busHealth = health
        return true
    }

    /// Whether the bus seen is known not to answer `auth.cmd` (a locus-bus that does not say it is the authority).
    var isNotAuthority: Bool {
        guard let busHealth else { return false }
        return busHealth.detail?["authority"] == nil
    }

    /// The sentence for an exchange that ended without an answer after `seconds`.
    func silence(seconds: Double, waitingFor what: String) -> String {
        guard let busHealth else {
            return "no answer in \(seconds) s: something accepted the connection at \(endpoints.pub) but no locus-bus "
                + "is there (no health.bus: another broker or relay?), so nothing is the authorization authority"
        }
        if busHealth.detail?["authority"] == nil {
            return "the bus at \(endpoints.sub) is not the authorization authority (its health.bus names none: an older locus-bus?)"
        }
        return "the bus at \(endpoints.sub) (authority: \(busHealth.detail?["authority"] ?? "?")) sent no \(what) in \(seconds) s"
    }
}
