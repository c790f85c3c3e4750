import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// `locus tail`: the bus as text, for people, jq and shell pipelines.
enum TailCommand {
    static let spec = CommandLineSpec(
        program: "locus tail",
        summary: "print bus messages live, one per line",
        usage: "locus tail [PREFIX...] [--json] [--count N] [--timeout SECONDS]",
        options: [
            OptionSpec("--sub", value: "ENDPOINT", help: "bus endpoint to subscribe to", environment: "LOCUS_SUB"),
            OptionSpec("--json", help: "print only the JSON bodies"),
            OptionSpec("--count", value: "N", help: "exit 0 after N messages"),
            OptionSpec("--timeout", value: "SECONDS", help: "exit 1 if fewer than --count messages arrived by then (or 0 without --count)"),
            OptionSpec("--config", value: "FILE", help: "read options from a JSON object"),
            OptionSpec("--pub", value: "ENDPOINT", help: "on NATS: the cluster (nats://…), else taken from LOCUS_PUB", environment: nil),
            NATSBus.credentialsOption,
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: """
        Prefixes match topics from their start (e.g. location.fused. or region.event.); none means everything.
        Repeats of a message id (last-value replays) are printed once; messages lost on the way (gaps in a topic's tseq) are reported on stderr.
        On NATS (--sub/--pub nats://…, or LOCUS_PUB) a prefix ends at a dot or is a whole topic; the stored last values come first.
        """)

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let endpoint = options.string("--sub") ?? BusEndpoints.fromEnvironment().sub
        let jsonOnly = options.flag("--json")
        let limit: Int?
        let timeout: Double?
        do {
            limit = try options.int("--count")
            timeout = try options.double("--timeout")
        } catch { ServiceProgram.usageFailure("locus tail", error.message) }
        let prefixes = options.positionals.isEmpty ? [""] : options.positionals
        let log = ServiceLog(name: "locus tail")
        if let cluster = NATSBus.endpoint(options, program: "locus tail") {
            return TailNATS.run(cluster, options: options, prefixes: prefixes, jsonOnly: jsonOnly, limit: limit, timeout: timeout, log: log)
        }
        let context = ZMQContext()
        let signals = ServiceProgram.handleTerminationSignals { _ in context.shutdown() }
        defer { signals.forEach { $0.cancel() } }
        do {
            let subscriber = try BusSubscriber(context: context, endpoint: endpoint, prefixes: prefixes)
            defer { subscriber.socket.close() }
            var poller = Poller()
            poller.add(subscriber.socket)
            let deadline = timeout.map { Date().timeIntervalSince1970 + $0 }
            var printed = 0
            var reportedGaps = 0
            var output = LineWriter(fd: 1)
            while limit.map({ printed < $0 }) ?? true {
                guard let wait = pollWait(until: deadline) else { break }
                let readable: [Bool]
                do { readable = try poller.poll(timeoutMilliseconds: wait) } catch where error.isTerminated { break }
                guard readable[0] else { continue }
                while limit.map({ printed < $0 }) ?? true, let received = try subscriber.receive(dontWait: true) {
                    switch received {
                    case .duplicate: continue
                    case let .rejected(topic, error):
                        log.warn("malformed message\(topic.map { " on \($0)" } ?? ""): \(error.message)")
                    case let .message(topic, _, raw):
                        output.write(jsonOnly ? String(decoding: raw, as: UTF8.self) : TextForm.line(topic: topic, body: raw))
                        printed += 1
                    }
                }
                output.flush()
                if subscriber.sequences.missing > reportedGaps {
                    log.warn("\(subscriber.sequences.missing - reportedGaps) message(s) lost before reaching this subscriber (tseq gaps)")
                    reportedGaps = subscriber.sequences.missing
                }
            }
            output.flush()
            if let limit, printed < limit {
                log.warn("timed out after \(printed) of \(limit) message(s)")
                return 1
            }
            return 0
        } catch {
            if error.isTerminated { return 0 }
            log.error("\(error)")
            return 1
        }
    }

    /// How long one poll may wait before `deadline` (wall clock): -1 without one, nil once it
    /// has passed. The ZeroMQ and the NATS tail share it.
    static func pollWait(until deadline: Double?) -> Int? {
        guard let deadline else { return -1 }
        let remaining = deadline - Date().timeIntervalSince1970
        return remaining > 0 ? max(1, Int(remaining * 1000)) : nil
    }
}
