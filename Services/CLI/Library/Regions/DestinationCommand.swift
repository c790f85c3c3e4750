import Foundation
import LocusBus
import LocusService
import LocusProtocol

/// `locus destination`: set or clear a device's destination for the notifier, which then
/// sends progress notifications every step and one arrival inside the radius.
enum DestinationCommand {
    static let spec = CommandLineSpec(
        program: "locus destination",
        summary: "set or clear a destination; locus-notifier reports progress and arrival",
        usage: "locus destination set LAT LON [--radius METRES] [--step METRES] [--device D] | locus destination clear [--device D]",
        options: [
            OptionSpec("--pub", value: "ENDPOINT", help: "bus endpoint to publish to", environment: "LOCUS_PUB"),
            OptionSpec("--device", value: "ID", help: "the device travelling", default: "local"),
            OptionSpec("--radius", value: "METRES", help: "arrived when this close (default: the notifier's --arrival-radius)"),
            OptionSpec("--step", value: "METRES", help: "distance between progress notifications (default: the notifier's --progress-step)"),
            OptionSpec("--timeout", value: "SECONDS", help: "how long to wait for the bus", default: "5"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "Publishes destination.set / destination.clear on notify.request. Exit status: 0 sent, 64 bad arguments, 69 bus unreachable.")

    static func run(_ arguments: [String]) -> Int32 {
        let program = "locus destination"
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let device = options.string("--device") ?? "local"
        guard Topic.isValidID(device) else { ServiceProgram.usageFailure(program, "'\(device)' is not a valid device id") }
        var fields: [String: JSONValue] = ["device": .string(device)]
        let type: String
        switch options.positionals.first {
        case "set":
            guard options.positionals.count == 3, let lat = Double(options.positionals[1]), let lon = Double(options.positionals[2]),
                  abs(lat) <= 90, abs(lon) <= 180 else {
                ServiceProgram.usageFailure(program, "expected: set LAT LON with LAT in [-90, 90] and LON in [-180, 180]")
            }
            type = "destination.set"
            fields["lat"] = .number(lat)
            fields["lon"] = .number(lon)
            for name in ["--radius", "--step"] {
                let value: Double?
                do { value = try options.double(name) } catch { ServiceProgram.usageFailure(program, error.message) }
                if let value {
                    guard value.isFinite && value > 0 else { ServiceProgram.usageFailure(program, "\(name) must be a positive number") }
                    fields[String(name.dropFirst(2))] = .number(value)
                }
            }
        case "clear":
            guard options.positionals.count == 1 else { ServiceProgram.usageFailure(program, "clear takes no arguments") }
            type = "destination.clear"
        default:
            ServiceProgram.usageFailure(program, "expected 'set' or 'clear'")
        }
        var ids = MessageIDGenerator()
        let message = Message(body: .other(type: type, fields: .object(fields)), id: ids.next(),
                              t: Date().timeIntervalSince1970, src: "cli/destination")
        let log = ServiceLog(name: program)
        let endpoint = options.string("--pub") ?? BusEndpoints.fromEnvironment().pub
        let timeout: Double
        do { timeout = try options.double("--timeout") ?? 5 } catch { ServiceProgram.usageFailure(program, error.message) }
        let context = ZMQContext()
        do {
            let publisher = try BusPublisher(context: context, endpoint: endpoint, source: "cli/destination")
            defer { publisher.socket.close() }
            guard try publisher.waitUntilConnected(timeoutSeconds: timeout) else {
                log.error("no bus at \(endpoint) after \(timeout) s (is locus-bus running?)")
                return 69
            }
            try publisher.send(topic: Topic.notifyRequest, body: MessageCodec.encode(message))
            print(TextForm.line(topic: Topic.notifyRequest, body: MessageCodec.encode(message)))
            return 0
        } catch {
            log.error("\(error)")
            return 1
        }
    }
}
