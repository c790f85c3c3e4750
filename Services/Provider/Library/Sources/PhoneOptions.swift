public import LocusService
import Foundation
import LocusMQTT
import LocusNet
import LocusProtocol

/// The options of the phone plugins — `owntracks` (MQTT) and `osmand` (HTTP) — and the
/// translation of parsed options into their sources (docs/phones.md).
public enum PhoneOptions {
    public static let plugins = ["owntracks", "osmand"]

    public static let options: [OptionSpec] = [
        OptionSpec("--broker", value: "HOST:PORT", help: "owntracks: MQTT broker (default localhost:1883, :8883 with --mqtt-ca-file)"),
        OptionSpec("--topic", value: "FILTER", help: "owntracks: topic filter to subscribe to (repeatable)", default: "owntracks/+/+", repeatable: true),
        OptionSpec("--client-id", value: "ID", help: "owntracks: fixed MQTT client id; the broker then keeps QoS 1 reports for it while it is down"),
        OptionSpec("--device-name", value: "device|user-device", help: "owntracks: device id from owntracks/USER/DEVICE", default: "device"),
        OptionSpec("--listen", value: "HOST:PORT", help: "osmand: address to take reports on (IPv4)", default: "127.0.0.1:5055"),
        OptionSpec("--tokens", value: "FILE", help: "osmand: 'DEVICE TOKEN' lines; only these devices, each with its token (required off loopback)"),
        OptionSpec("--allow-device", value: "ID", help: "owntracks/osmand: accept only this device (repeatable)", repeatable: true),
        OptionSpec("--max-devices", value: "N", help: "owntracks/osmand: most phones served", default: "1000"),
        OptionSpec("--phone-altitude", value: "drop|ellipsoid", help: "owntracks/osmand: 'ellipsoid' when the phones report height above the WGS-84 ellipsoid", default: "drop"),
    ] + MQTTOptions.options

    /// Builds the source of a phone plugin; throws for a bad combination of options.
    public static func makeSource(plugin: String, options: ParsedOptions) throws(UsageError) -> any PositionSource {
        var mapping = PhoneMapping()
        mapping.source = options.string("--source") ?? "phone"
        if let hacc = try options.double("--hacc") {
            guard hacc > 0, hacc.isFinite else { throw UsageError("--hacc must be greater than 0") }
            mapping.assumedHacc = hacc
        }
        guard let altitude = PhoneMapping.Altitude(rawValue: options.string("--phone-altitude") ?? "drop") else {
            throw UsageError("--phone-altitude must be drop or ellipsoid")
        }
        mapping.altitude = altitude
        let named = options.strings("--allow-device")
        for device in named where !Topic.isValidID(device) { throw UsageError("--allow-device '\(device)' is not a valid device id") }
        let allowed = named.isEmpty ? nil : Set(named)
        let maximumDevices = try options.int("--max-devices") ?? 1000
        guard maximumDevices > 0 else {
            throw UsageError("--max-devices must be positive")
        }
        switch plugin {
        case "owntracks":
            return try owntracks(options: options, mapping: mapping, allowed: allowed, maximumDevices: maximumDevices)
        default:
            return try osmand(options: options, mapping: mapping, allowed: allowed, maximumDevices: maximumDevices)
        }
    }

    static func owntracks(options: ParsedOptions, mapping: PhoneMapping, allowed: Set<String>?,
                          maximumDevices: Int) throws(UsageError) -> OwnTracksSource {
        let tls = options.string("--mqtt-ca-file") != nil
        let broker = options.string("--broker") ?? "localhost"
        var host = broker
        var port: Int32 = tls ? 8883 : 1883
        if let colon = broker.lastIndex(of: ":") {
            guard let value = Int32(broker[broker.index(after: colon)...]), (1...65_535).contains(value) else {
                throw UsageError("--broker expects HOST:PORT, got '\(broker)'")
            }
            host = String(broker[..<colon])
            port = value
        }
        guard !host.isEmpty else { throw UsageError("--broker expects HOST:PORT, got '\(broker)'") }
        let clientID = options.string("--client-id")
        var settings = MQTTSettings(host: host, port: port, clientID: clientID ?? "locus-owntracks-\(getpid())")
        settings.cleanSession = clientID == nil
        try MQTTOptions.apply(options, to: &settings)
        let topics = options.strings("--topic")
        guard let naming = OwnTracksReport.DeviceNaming(rawValue: options.string("--device-name") ?? "device") else {
            throw UsageError("--device-name must be device or user-device")
        }
        return OwnTracksSource(settings: settings, topics: topics.isEmpty ? ["owntracks/+/+"] : topics, naming: naming,
                               mapping: mapping, allowed: allowed, maximumDevices: maximumDevices)
    }

    static func osmand(options: ParsedOptions, mapping: PhoneMapping, allowed: Set<String>?,
                       maximumDevices: Int) throws(UsageError) -> OsmAndSource {
        guard let address = ListenAddress(parsing: options.string("--listen") ?? "127.0.0.1:5055") else {
            throw UsageError("--listen expects HOST:PORT with an IPv4 host")
        }
        var tokens: DeviceTokens?
        if let path = options.string("--tokens") {
            do { tokens = try DeviceTokens(contentsOf: path) } catch { throw UsageError("--tokens: \(error.message)") }
        }
        guard tokens != nil || address.isLoopback else {
            throw UsageError("--listen \(address) is reachable from other hosts: give --tokens FILE so each phone authenticates")
        }
        let listener: Listener
        do { listener = try Listener.tcp(address) } catch { throw UsageError(error.message) }
        return OsmAndSource(listener: listener, tokens: tokens, mapping: mapping, allowed: allowed, maximumDevices: maximumDevices)
    }
}
