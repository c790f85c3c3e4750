public import LocusService
public import LocusProtocol

/// The bus side of `locus-gpsd`: picks the served devices' fixes (and the satellite counts
/// of their raw fixes) off the bus and hands them to the server thread through the feed.
/// It publishes nothing but health and errors; the server does the talking.
public struct GpsdLogic: ServiceLogic {
    public static let service = "gpsd"

    public let configuration: GpsdConfiguration
    private var admission: DeviceAdmission
    private let feed: UpdateFeed
    private let statistics: GpsdStatistics
    private var counts = Counters()

    public init(configuration: GpsdConfiguration, feed: UpdateFeed, statistics: GpsdStatistics) {
        self.configuration = configuration
        self.feed = feed
        self.statistics = statistics
        admission = DeviceAdmission(named: configuration.devices, maximumCount: configuration.maximumDevices)
    }

    /// Named devices are subscribed to one by one (the bus then sends nothing else);
    /// otherwise the whole stream, filtered here. Raw fixes only for their satellites,
    /// and never for the approximate stream (a reduced viewer reads nothing precise).
    public var subscriptions: [String] {
        var prefixes: [String]
        if configuration.devices.isEmpty {
            prefixes = [configuration.stream.prefix]
            if configuration.stream == .fused { prefixes.append(Topic.locationRawPrefix) }
        } else {
            prefixes = configuration.devices.map { configuration.stream.prefix + $0 }
            if configuration.stream == .fused { prefixes += configuration.devices.map(Topic.locationRaw) }
        }
        return prefixes
    }

    public mutating func receive(_ message: Message, topic: String, now: Double) -> [Outbound] {
        guard case .location(let location) = message.body else {
            counts.add("ignored")
            return []
        }
        if let device = Topic.suffix(of: topic, after: configuration.stream.prefix) {
            guard device == location.device else { return mismatch(topic: topic, location: location, now: now) }
            guard admission.admit(device) else { return [] }
            feed.deliver(.fix(location, t: message.envelope.t))
        } else if configuration.stream == .fused, let device = Topic.suffix(of: topic, after: Topic.locationRawPrefix) {
            guard device == location.device else { return mismatch(topic: topic, location: location, now: now) }
            guard admission.isAdmitted(device), location.sats != nil || location.hdop != nil else { return [] }
            feed.deliver(.satellites(device: device, used: location.sats, hdop: location.hdop, t: message.envelope.t - (location.age ?? 0)))
        } else {
            counts.add("ignored")
        }
        return []
    }

    private mutating func mismatch(topic: String, location: Location, now: Double) -> [Outbound] {
        counts.add("mismatched")
        let report = ErrorReport(code: "invalidValue", message: "\(topic): location.device '\(location.device)' does not match the topic",
                                 topic: topic)
        return [Outbound(topic: Topic.error(Self.service), body: .error(report), t: now)]
    }

    public var healthCounters: [String: Int] {
        var values = counts.values
        values["devicesServed"] = admission.admitted.count
        values["devicesRefused"] = admission.refusedDevices
        values["feedDropped"] = feed.dropped
        for (key, value) in statistics.snapshot { values[key] = value }
        return values
    }
}
