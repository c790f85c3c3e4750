import Foundation
public import LocusService
import LocusMQTT

extension SinkOptions {
    /// The options of the network sinks: webhook TLS, proxy and headers; MQTT credentials and TLS.
    public static let transportOptions: [OptionSpec] = [
        OptionSpec("--webhook-ca-file", value: "FILE", help: "webhook: trust this CA (PEM) for https:// receivers instead of the system's"),
        OptionSpec("--webhook-proxy", value: "URL", help: "webhook: send through this proxy (default: the https_proxy/http_proxy variables)"),
        OptionSpec("--webhook-header", value: "HEADER", help: "webhook: extra request header 'NAME: VALUE', e.g. a receiver's token (repeatable)", repeatable: true),
    ] + MQTTOptions.options

    /// Reads `transportOptions`; a missing file or a header without a colon is a usage error.
    public mutating func applyTransport(_ options: ParsedOptions) throws(UsageError) {
        if let path = options.string("--webhook-ca-file") {
            guard FileManager.default.isReadableFile(atPath: path) else { throw UsageError("--webhook-ca-file: cannot read \(path)") }
            webhook.caFile = path
        }
        webhook.proxy = options.string("--webhook-proxy")
        for line in options.strings("--webhook-header") {
            guard let colon = line.firstIndex(of: ":"), colon > line.startIndex,
                  !line.contains("\r"), !line.contains("\n") else {
                throw UsageError("--webhook-header expects 'NAME: VALUE', got '\(line)'")
            }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            webhook.headers.append((String(line[..<colon]), String(value)))
        }
        try MQTTOptions.apply(options, to: &mqttCredentials)
    }
}
