public import LocusService
public import LocusProtocol

/// The provider's service logic: receives its sources' fixes (delivered on
/// `location.raw.<device>` by `SourceContext`) and `control.<device>` from the bus, applies
/// the `ControlPolicy`, and publishes what passes. Health says which plugin runs, what
/// control is applied, and whether the receiver has a fix.
public struct ProviderLogic: ServiceLogic {
    public let device: String
    public let plugin: String
    public let status: SourceStatus
    public private(set) var policy = ControlPolicy()
    public private(set) var counts: [String: Int] = [:]

    public init(device: String, plugin: String, status: SourceStatus) {
        self.device = device
        self.plugin = plugin
        self.status = status
    }

    public var subscriptions: [String] { [Topic.control(device)] }

    public mutating func receive(_ message: Message, topic: String, now: Double) -> [Outbound] {
        switch message.body {
        case .control(let control):
            // A prefix subscription to control.gps also matches control.gps2: check the device.
            guard control.device == device, topic == Topic.control(device) else { return [] }
            policy.apply(control)
            counts["controls", default: 0] += 1
            return []
        case .location(let location) where topic == Topic.locationRaw(device):
            counts["fixes", default: 0] += 1
            let decision = policy.admit(location, t: message.envelope.t)
            guard decision == .publish else {
                counts["filtered." + decision.rawValue, default: 0] += 1
                return []
            }
            return [Outbound(topic: topic, body: .location(location), t: message.envelope.t)]
        default:
            return []
        }
    }

    public var healthCounters: [String: Int] {
        var all = counts
        for (key, value) in status.snapshot.counters { all["source." + key] = value }
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
        var detail = ["plugin": plugin, "device": device, "control": policy.summary, "fix": snapshot.state.rawValue]
        if let note = snapshot.note { detail["note"] = note }
        return detail
    }
}
