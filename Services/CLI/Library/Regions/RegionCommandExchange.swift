import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// Sends region commands and pairs each with its reply by `re`, resending (under a new
/// id, since receivers drop repeated ids) whatever went unanswered.
struct RegionCommandExchange {
    let endpoints: BusEndpoints
    let owner: String
    /// The owner's keys on a CURVE bus (tcp); nil on a local NULL bus.
    var curve: CurveClientOptions? = nil
    /// Commands in flight at once, well below the bus's queue bounds.
    let window = 500

    func send(_ commands: [Body], timeoutSeconds: Double, attempts: Int) throws -> [Body?] {
        let context = ZMQContext()
        let subscriber = try BusSubscriber(context: context, endpoint: endpoints.sub, prefixes: [Topic.regionState(owner), Topic.regionEvent(owner)], curve: curve)
        let publisher = try BusPublisher(context: context, endpoint: endpoints.pub, source: "cli/regions", curve: curve)
        defer {
            subscriber.socket.close()
            publisher.socket.close()
        }
        guard try publisher.waitUntilConnected(timeoutSeconds: timeoutSeconds) else {
            throw ExchangeError("no bus at \(endpoints.pub)")
        }
        var replies = [Body?](repeating: nil, count: commands.count)
        var poller = Poller()
        poller.add(subscriber.socket)
        for _ in 0..<attempts {
            var unanswered = replies.indices.filter { replies[$0] == nil }
            if unanswered.isEmpty { break }
            while !unanswered.isEmpty {
                let batch = unanswered.prefix(window)
                unanswered.removeFirst(batch.count)
                var waiting: [String: Int] = [:]
                for index in batch {
                    let message = try publisher.publish(commands[index], topic: Topic.regionCmd, t: Date().timeIntervalSince1970)
                    waiting[message.envelope.id] = index
                }
                let deadline = Date().timeIntervalSince1970 + timeoutSeconds
                while !waiting.isEmpty {
                    let remaining = deadline - Date().timeIntervalSince1970
                    if remaining <= 0 { break }
                    _ = try poller.poll(timeoutMilliseconds: max(1, Int(remaining * 1000)))
                    while let received = try subscriber.receive(dontWait: true) {
                        guard case .message(_, let message, _) = received, let re = RegionCommandExchange.re(of: message.body),
                              let index = waiting.removeValue(forKey: re) else { continue }
                        replies[index] = message.body
                    }
                }
            }
        }
        return replies
    }

    /// Files an `auth.request` for the owner, so it waits in `locus auth pending`; best effort
    /// (a refusal, e.g. no usage description in an allow-list manifest, goes to `error.bus`).
    func requestAuthorization(level: String, purpose: String) {
        let context = ZMQContext()
        guard let publisher = try? BusPublisher(context: context, endpoint: endpoints.pub, source: "cli/regions", curve: curve) else { return }
        defer { publisher.socket.close() }
        guard (try? publisher.waitUntilConnected(timeoutSeconds: 2)) == true else { return }
        let request = AuthRequest(client: owner, level: level, purpose: purpose)
        _ = try? publisher.publish(.authRequest(request), topic: Topic.authCmd, t: Date().timeIntervalSince1970)
        _ = try? publisher.flush(timeoutSeconds: 2)
    }

    static func re(of body: Body) -> String? {
        switch body {
        case .regionAdded(let reply): return reply.re
        case .regionRemoved(let reply): return reply.re
        case .regionFailed(let reply): return reply.re
        case .regionList(let reply): return reply.re
        default: return nil
        }
    }

    struct ExchangeError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
