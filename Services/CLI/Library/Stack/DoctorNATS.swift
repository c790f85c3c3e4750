import Foundation
import LocusBus
import LocusNATS
import LocusProtocol
import LocusService

/// `locus doctor` on a NATS cluster: the connection and the servers the client knows, each
/// Locus stream's leader and replicas, each durable consumer's backlog, then every service's
/// health (the stored last one of each, and what arrives while it listens).
enum DoctorNATS {
    typealias Finding = DoctorCommand.Finding

    /// Messages a consumer may have waiting (not yet delivered, or not yet acknowledged) before it is reported as behind.
    static let behind: UInt64 = 10_000

    static func findings(_ cluster: NATSEndpoint, options: ParsedOptions, wait: Double) -> [Finding] {
        let connection: NATSConnection
        switch NATSBus.connect(cluster, options: options, name: "cli/doctor") {
        case .failure(let error): return [Finding(level: .fail, text: "\(error.message) (is the cluster up? scripts/nats-cluster.sh up)")]
        case .success(let made): connection = made
        }
        var findings: [Finding] = []
        let report: NATSClusterReport
        do { report = try NATSClusterReport.gather(connection) } catch {
            return [Finding(level: .fail, text: "connected to \(cluster), but JetStream does not answer: \(error.message)")]
        }
        findings.append(Finding(level: .ok, text: "nats: connected to \(report.connectedTo); \(Set(report.knownServers).count) server(s) known: "
                                + report.knownServers.sorted().joined(separator: " ")))
        findings += streamFindings(report)
        findings += report.consumers.map(consumerFinding)
        findings += healthFindings(connection, wait: wait)
        return findings
    }

    static func streamFindings(_ report: NATSClusterReport) -> [Finding] {
        var findings = report.missing.map {
            Finding(level: .warn, text: "stream \($0): missing (a Locus service creates it when it starts)")
        }
        for stream in report.streams {
            let head = "stream \(stream.name): \(stream.messages) message(s), \(stream.replicas) replica(s)"
            guard let leader = stream.leader else {
                findings.append(Finding(level: .fail, text: "\(head), no leader (a majority of its servers is down)"))
                continue
            }
            let lagging = stream.followers.filter { $0.offline || !$0.current }
            let followers = stream.followers.map { "\($0.name)\($0.offline ? " offline" : $0.current ? "" : " behind by \($0.lag)")" }
            let text = "\(head), leader \(leader)" + (followers.isEmpty ? "" : ", followers " + followers.joined(separator: ", "))
            findings.append(Finding(level: lagging.isEmpty && stream.followers.count + 1 >= stream.replicas ? .ok : .warn, text: text))
        }
        return findings
    }

    static func consumerFinding(_ consumer: NATSClusterReport.Consumer) -> Finding {
        let text = "consumer \(consumer.name) (\(consumer.stream)): \(consumer.pending) waiting, \(consumer.unacknowledged) unacknowledged"
            + (consumer.redelivered > 0 ? ", \(consumer.redelivered) redelivered" : "")
        let late = consumer.pending >= behind || UInt64(max(0, consumer.unacknowledged)) >= behind
        return Finding(level: late ? .warn : .ok, text: late ? text + " — behind (is its service running and keeping up?)" : text)
    }

    static func healthFindings(_ connection: NATSConnection, wait: Double) -> [Finding] {
        var latest: [String: (health: Health, t: Double)] = [:]
        var findings: [Finding] = []
        do {
            let tap = try NATSTap(connection: connection, prefixes: [Topic.healthPrefix])
            defer { tap.close() }
            do { try tap.readLastValues() } catch {
                findings.append(Finding(level: .warn, text: "stored health not readable (\(error.message)); only what arrives in \(wait) s"))
            }
            var poller = Poller()
            poller.add(fileDescriptor: tap.readyFD)
            let deadline = Date().timeIntervalSince1970 + wait
            repeat {
                for received in tap.drain() {
                    if let message = try? MessageCodec.decode(received.body), case .health(let health) = message.body,
                       message.envelope.t >= latest[health.service]?.t ?? 0 {
                        latest[health.service] = (health, message.envelope.t)
                    }
                }
                let remaining = deadline - Date().timeIntervalSince1970
                if remaining > 0 { _ = try? poller.poll(timeoutMilliseconds: max(1, Int(remaining * 1000))) }
            } while Date().timeIntervalSince1970 < deadline
        } catch {
            return [Finding(level: .fail, text: "cannot read health: \(error.message)")]
        }
        guard !latest.isEmpty else { return findings + [Finding(level: .warn, text: "no health message from any service within \(wait) s")] }
        let now = Date().timeIntervalSince1970
        return findings + latest.sorted { $0.key < $1.key }.map { DoctorCommand.judge(service: $0.key, health: $0.value.health, age: now - $0.value.t) }
    }
}
