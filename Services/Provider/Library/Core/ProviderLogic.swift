public import LocusService
public import LocusProtocol

/// The provider's service logic: receives its sources' fixes (delivered on
/// `location.raw.<device>` by `SourceContext`) and `control.<device>` from the bus, applies
/// the `ControlPolicy`, and publishes what passes. Health says which plugin runs, what
/// control is applied, and whether the receiver has a fix. A source that learns from the
/// device's fused fixes (the network plugins) gets them through `fusedFixes`.
///
/// A plugin whose fixes name their own device (`namesDevices`: phones reporting through
/// OwnTracks or OsmAnd) gets one policy per device, and every device's control.
public struct ProviderLogic: ServiceLogic {
    public let device: String
    public let plugin: String
    public let status: SourceStatus
    public let namesDevices: Bool
    /// Most devices a device-naming plugin keeps a control policy for.
    public static let maximumDevices = 10_000
    private var policies: [String: ControlPolicy] = [:]
    public private(set) var counts: [String: Int] = [:]
    public let fusedFixes: FusedFixMailbox?

    public init(device: String, plugin: String, status: SourceStatus, fusedFixes: FusedFixMailbox? = nil, namesDevices: Bool = false) {
        self.device = device
        self.plugin = plugin
        self.status = status
        self.fusedFixes = fusedFixes
        self.namesDevices = namesDevices
    }

    /// The control applied to `device` (the provider's own device by default).
    public func policy(for device: String? = nil) -> ControlPolicy {
        policies[device ?? self.device] ?? ControlPolicy()
    }

    public var policy: ControlPolicy { policy() }

    public var subscriptions: [String] {
        [namesDevices ? Topic.controlPrefix : Topic.control(device)] + (fusedFixes == nil ? [] : [Topic.locationFused(device)])
    }

    public mutating func receive(_ message: Message, topic: String, now: Double) -> [Outbound] {
        switch message.body {
        case .control(let control):
            // A prefix subscription to control.gps also matches control.gps2: check the device.
            guard topic == Topic.control(control.device), namesDevices || control.device == device else { return [] }
            guard policies[control.device] != nil || policies.count < Self.maximumDevices else {
                counts["controlsIgnored", default: 0] += 1
                return []
            }
            policies[control.device, default: ControlPolicy()].apply(control)
            counts["controls", default: 0] += 1
            return []
        case .location(let location) where topic == Topic.locationRaw(namesDevices ? location.device : device):
            counts["fixes", default: 0] += 1
            var policy = policies[location.device] ?? ControlPolicy()
            let decision = policy.admit(location, t: message.envelope.t)
            if policies[location.device] != nil || policies.count < Self.maximumDevices { policies[location.device] = policy }
            guard decision == .publish else {
                counts["filtered." + decision.rawValue, default: 0] += 1
                return []
            }
            return [Outbound(topic: topic, body: .location(location), t: message.envelope.t)]
        case .location(let location) where topic == Topic.locationFused(device):
            guard let fusedFixes, location.device == device else { return [] }
            fusedFixes.post(location, t: message.envelope.t)
            counts["fusedFixes", default: 0] += 1
            return []
        default:
            return []
        }
    }

    public var healthCounters: [String: Int] {
        var all = counts
        for (key, value) in status.snapshot.counters { all["source." + key] = value }
        if namesDevices { all["devices"] = policies.count }
        return all
    }

    public var healthState: HealthState {
        switch status.snapshot.state {
        case .fix, .finished, .waiting: return .ok
        case .noFix, .disconnected: return .degraded
        }
    }

    public var healthDetail: [String: String]? {
        let snapshot = status.snapshot
        var detail = ["plugin": plugin, "fix": snapshot.state.rawValue]
        if namesDevices {
            detail["device"] = "named by each fix"
            let controlled = policies.values.filter { $0.summary != ControlPolicy().summary }.count
            detail["control"] = "\(controlled) of \(policies.count) device(s) under control"
        } else {
            detail["device"] = device
            detail["control"] = policy.summary
        }
        if let note = snapshot.note { detail["note"] = note }
        for (key, value) in snapshot.remarks { detail[key] = value }
        return detail
    }
}
