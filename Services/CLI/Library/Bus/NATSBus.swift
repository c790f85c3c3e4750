import Foundation
import LocusBus
import LocusNATS
import LocusProtocol
import LocusService

/// The command line's own bus commands on a NATS cluster (docs/nats.md, "Operations"): the
/// cluster is the first of `--sub`, `--pub` and `LOCUS_PUB` that names NATS.
enum NATSBus {
    static let credentialsOption = OptionSpec("--nats-credentials", value: "FILE", help: "on NATS: a file with 'user:password' or a NATS .creds file",
                                              environment: "LOCUS_NATS_CREDENTIALS")

    /// The NATS cluster these options name, or nil for the ZeroMQ bus.
    static func endpoint(_ options: ParsedOptions, program: String) -> NATSEndpoint? {
        let candidates = [options.string("--sub"), options.string("--pub"), BusEndpoints.fromEnvironment().pub].compactMap { $0 }
        guard let text = candidates.first(where: NATSEndpoint.isNATS) else { return nil }
        do { return try NATSEndpoint(text) } catch { ServiceProgram.usageFailure(program, error.message) }
    }

    /// One connection (no retrying: a person is waiting), or a message for stderr.
    static func connect(_ endpoint: NATSEndpoint, options: ParsedOptions, name: String) -> Result<NATSConnection, NATSError> {
        do {
            let credentials = try options.string("--nats-credentials").map { path throws(NATSError) in try NATSCredentials.load(path: path) }
            return .success(try NATSConnection(endpoint: endpoint, name: name, credentials: credentials))
        } catch {
            return .failure(error)
        }
    }

    /// Publishes text-form items: topics a stream keeps go through JetStream (confirmed, the
    /// message id as `Nats-Msg-Id`), the rest plainly. False when the servers did not take them all.
    /// Positions travel as the deployment's services say (`LOCUS_FIX_DELIVERY`, docs/nats.md).
    static var fixDelivery: FixDelivery {
        ProcessInfo.processInfo.environment["LOCUS_FIX_DELIVERY"].flatMap(FixDelivery.init(option:)) ?? .durable
    }

    static func publish(_ items: [(topic: String, body: [UInt8])], on connection: NATSConnection, timeout: Double) throws(NATSError) -> Bool {
        let delivery = fixDelivery
        if items.contains(where: { StreamLayout.route(forTopic: $0.topic, delivery: delivery) != .plain }) {
            try connection.ensureStreams(delivery: delivery)  // as a service would at its start
        }
        for item in items {
            let subject = SubjectMapping.subject(forTopic: item.topic)
            switch StreamLayout.route(forTopic: item.topic, delivery: delivery) {
            case .durable(let stream):
                let id = (try? MessageCodec.decode(item.body))?.envelope.id ?? UUID().uuidString
                try connection.publishDurable(subject: subject, body: item.body, id: id, stream: stream.name)
            case .lastValue, .plain:
                connection.publish(subject: subject, body: item.body)
            case .live:
                connection.publish(subject: subject, body: item.body)
                connection.publish(subject: StreamLayout.lastValueSubject(forSubject: subject), body: item.body)
            }
        }
        return connection.confirmPublishes(timeoutSeconds: timeout) && connection.flush(timeoutSeconds: timeout)
    }
}
