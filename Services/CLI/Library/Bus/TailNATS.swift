import Foundation
import LocusBus
import LocusNATS
import LocusProtocol
import LocusService

/// `locus tail` on a NATS cluster: plain subscriptions (and the stored last values first)
/// through `NATSTap`; nothing is left on the servers.
enum TailNATS {
    static func run(_ cluster: NATSEndpoint, options: ParsedOptions, prefixes: [String], jsonOnly: Bool, limit: Int?,
                    timeout: Double?, log: ServiceLog) -> Int32 {
        let connection: NATSConnection
        switch NATSBus.connect(cluster, options: options, name: "cli/tail") {
        case .failure(let error):
            log.error(error.message)
            return 69
        case .success(let made): connection = made
        }
        let stop = Wakeup()
        let signals = ServiceProgram.handleTerminationSignals { _ in stop.signal() }
        defer { signals.forEach { $0.cancel() } }
        let tap: NATSTap
        do { tap = try NATSTap(connection: connection, prefixes: prefixes) } catch {
            log.error(error.message)
            return 1
        }
        defer { tap.close() }
        do { try tap.readLastValues() } catch { log.warn("\(error.message); showing live messages only") }
        var poller = Poller()
        let tapIndex = poller.add(fileDescriptor: tap.readyFD)
        let stopIndex = poller.add(fileDescriptor: stop.readFD)
        let deadline = timeout.map { Date().timeIntervalSince1970 + $0 }
        var seen = RecentIDs()
        var printed = 0
        var output = LineWriter(fd: 1)
        while limit.map({ printed < $0 }) ?? true {
            guard let wait = TailCommand.pollWait(until: deadline) else { break }
            guard let readable = try? poller.poll(timeoutMilliseconds: wait), !readable[stopIndex] else { break }
            guard readable[tapIndex] else { continue }
            for received in tap.drain() where limit.map({ printed < $0 }) ?? true {
                // A last value can also arrive live: print each message once.
                if let message = try? MessageCodec.decode(received.body), !seen.insert(message.envelope.id) { continue }
                output.write(jsonOnly ? String(decoding: received.body, as: UTF8.self) : TextForm.line(topic: received.topic, body: received.body))
                printed += 1
            }
            output.flush()
        }
        output.flush()
        if let limit, printed < limit {
            log.warn("timed out after \(printed) of \(limit) message(s)")
            return 1
        }
        return 0
    }
}
