import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// `locus pub`: publish from a shell. The body is checked by the same validation every
/// service applies, so a typo is reported here instead of being dropped downstream.
enum PubCommand {
    static let spec = CommandLineSpec(
        program: "locus pub",
        summary: "publish messages on the bus",
        usage: "locus pub TOPIC BODY | locus pub --file FILE",
        options: [
            OptionSpec("--pub", value: "ENDPOINT", help: "bus endpoint to publish to", environment: "LOCUS_PUB"),
            OptionSpec("--file", value: "FILE", help: "publish every text-form line of FILE ('-' for stdin)"),
            OptionSpec("--src", value: "NAME", help: "src for envelopes filled in here", default: "cli/pub"),
            OptionSpec("--timeout", value: "SECONDS", help: "how long to wait for the bus", default: "5"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "BODY is a JSON object; missing envelope fields (v, id, t, src) are filled in, `type` is required.\nExit status: 0 sent, 64 bad arguments, 65 invalid message, 69 bus unreachable.")

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let log = ServiceLog(name: "locus pub")
        let endpoint = options.string("--pub") ?? BusEndpoints.fromEnvironment().pub
        let source = options.string("--src") ?? "cli/pub"
        var ids = MessageIDGenerator()
        var items: [(topic: String, body: [UInt8])] = []
        do {
            if let file = options.string("--file") {
                let text: String
                if file == "-" {
                    text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                } else {
                    guard let data = FileManager.default.contents(atPath: file) else {
                        ServiceProgram.usageFailure("locus pub", "cannot read '\(file)'")
                    }
                    text = String(decoding: data, as: UTF8.self)
                }
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
                    do {
                        let parsed = try TextForm.parse(line)
                        items.append((parsed.topic, try complete(parsed.body, source: source, ids: &ids)))
                    } catch {
                        log.error("line \(number + 1): \(error)")
                        return 65
                    }
                }
            } else {
                guard options.positionals.count == 2 else { ServiceProgram.usageFailure("locus pub", "expected TOPIC and BODY") }
                let topic = options.positionals[0]
                guard isValidTopic(topic) else { ServiceProgram.usageFailure("locus pub", "'\(topic)' is not a valid topic") }
                items.append((topic, try complete(Array(options.positionals[1].utf8), source: source, ids: &ids)))
            }
        } catch {
            log.error("\(error)")
            return 65
        }
        let timeout: Double
        do { timeout = try options.double("--timeout") ?? 5 } catch { ServiceProgram.usageFailure("locus pub", error.message) }
        let context = ZMQContext()
        do {
            let publisher = try BusPublisher(context: context, endpoint: endpoint, source: source)
            defer { publisher.socket.close() }
            guard try publisher.waitUntilConnected(timeoutSeconds: timeout) else {
                log.error("no bus at \(endpoint) after \(timeout) s (is locus-bus running?)")
                return 69
            }
            for item in items { try publisher.send(topic: item.topic, body: item.body) }
            guard try publisher.flush(timeoutSeconds: timeout) else {
                log.error("the bus at \(endpoint) did not take \(publisher.pendingCount) message(s) within \(timeout) s")
                return 69
            }
            return 0
        } catch {
            log.error("\(error)")
            return 1
        }
    }

    /// Fills in absent envelope fields, then validates the result with the protocol codec.
    static func complete(_ body: [UInt8], source: String, ids: inout MessageIDGenerator) throws -> [UInt8] {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw ProtocolError(code: .notAnObject, field: nil, message: "the body must be a JSON object")
        }
        if object["v"] == nil { object["v"] = 1 }
        if object["id"] == nil { object["id"] = ids.next() }
        if object["t"] == nil { object["t"] = Date().timeIntervalSince1970 }
        if object["src"] == nil { object["src"] = source }
        let filled = Array(try JSONSerialization.data(withJSONObject: object))
        _ = try MessageCodec.decode(filled)  // validate; unknown fields travel as written
        return filled
    }

    static func isValidTopic(_ topic: String) -> Bool {
        !topic.isEmpty && topic.utf8.count <= 1024 && topic.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7f }
    }
}
