public import LocusService
import LocusGeo
public import LocusProtocol

/// The motion degrader's logic (docs/architecture.md): activities in, a strategy per
/// device out on `control.<device>`; when fused fixes stop or turn poor, dead-reckoned and
/// then cached positions out on `location.raw.<device>` (source `dr`/`cache`).
///
/// Fused fixes whose `mode` (or `source`) is `dr` or `cache` are this service's own positions
/// come back through fusion: they never count as good fixes, or the degrader would feed itself.
/// Time is each device's own: the messages' `t`, and for "now" the runtime's `now` less the
/// device's usual lag (`DeviceClock`), so a late device is not lost and `--stdio` replays
/// are deterministic.
public struct MotionLogic: ServiceLogic {
    public static let service = "motion"

    public var configuration: MotionConfiguration { didSet { rescheduleAll() } }
    public private(set) var devices: [String: DeviceTrack] = [:]
    /// Low power as the power supply reports it (nil: not known).
    public var lowPowerBySupply: Bool? { didSet { rescheduleAll() } }
    /// This instance's `src`, so its own control messages coming back over the bus are skipped.
    public let ownSource: String?
    var counters = Counters()
    /// Good fixes, counted apart from `counters`: one per fused fix, so no string is hashed for it.
    private var goodFixes = 0
    /// When each device next has something for `tick` to do.
    private var schedule = TickSchedule()
    /// Looks at every device in every tick, as before the schedule: the reference the
    /// schedule is tested against (same output, in the same order).
    var tickScansEveryDevice = false

    public init(configuration: MotionConfiguration = MotionConfiguration(), ownSource: String? = nil) {
        self.configuration = configuration
        self.ownSource = ownSource
    }

    public var subscriptions: [String] { [Topic.motionPrefix, Topic.locationFusedPrefix, Topic.controlPrefix] }

    public var healthCounters: [String: Int] {
        counters.values.merging(goodFixes > 0 ? ["goodFixes": goodFixes] : [:]) { a, _ in a }.merging([
            "devices": devices.count,
            "degraded": devices.values.filter(\.isDegraded).count,
            "unavailable": devices.values.filter(\.isUnavailable).count,
        ]) { a, _ in a }
    }

    public var healthState: HealthState { devices.values.contains(where: \.isUnavailable) ? .degraded : .ok }

    public var healthDetail: [String: String]? {
        let unavailable = devices.filter { $0.value.isUnavailable }.keys.sorted()
        guard !unavailable.isEmpty else { return nil }
        return ["unavailable": unavailable.prefix(20).joined(separator: ",")]
    }

    // MARK: - ServiceLogic

    public mutating func receive(_ message: Message, topic: String, now: Double) -> [Outbound] {
        switch message.body {
        case .location(let location) where topic.hasPrefix(Topic.locationFusedPrefix):
            return receiveFused(location, message: message, topic: topic, now: now)
        case .motion(let motion) where topic.hasPrefix(Topic.motionPrefix):
            return receiveMotion(motion, message: message, topic: topic, now: now)
        case .control(let control) where topic.hasPrefix(Topic.controlPrefix):
            return receiveControl(control, message: message, topic: topic, now: now)
        default:
            counters.add("ignored")
            return []
        }
    }

    /// Pauses and degradation steps that have fallen due, device by device in name order.
    /// Only devices the schedule says are due are looked at: the others have nothing to do.
    public mutating func tick(now: Double) -> [Outbound] {
        var out: [Outbound] = []
        for device in tickScansEveryDevice ? devices.keys.sorted() : schedule.takeDue(at: now) {
            guard var track = devices[device] else { continue }
            out += checkPause(&track, device: device, now: now)
            out += degrade(&track, device: device, now: now)
            devices[device] = track
            reschedule(device, track)
        }
        return out
    }

    private mutating func reschedule(_ device: String, _ track: DeviceTrack) {
        schedule.set(device, due: dueTime(track))
    }

    private mutating func rescheduleAll() {
        for (device, track) in devices { reschedule(device, track) }
    }

    // MARK: - Input

    private mutating func receiveFused(_ location: Location, message: Message, topic: String, now: Double) -> [Outbound] {
        var out: [Outbound] = []
        guard let device = accept(location.device, topic: topic, prefix: Topic.locationFusedPrefix, message: message, now: now, out: &out),
              var track = devices[device] else { return out }
        defer {
            devices[device] = track
            reschedule(device, track)
        }
        let t = message.envelope.t
        if Self.isOwnDegradedFix(location) {
            counters.add("ownFixes")
            return out
        }
        if t > track.newestFixT {
            track.newestFixT = t
            track.clock.observe(fixTime: t, arrival: now)
        }
        guard location.hacc <= configuration.maximumGoodHaccMeters else {
            counters.add("poorFixes")
            return out
        }
        if let last = track.lastGood, t <= last.t {
            counters.add("staleFixes")
            return out
        }
        track.cadence.observe(gap: track.lastGood.map { t - $0.t }, maximumIntervalSeconds: configuration.cadenceMaximumIntervalSeconds)
        goodFixes += 1
        track.lastGood = GoodFix(coordinate: Coordinate(lat: location.lat, lon: location.lon), haccMeters: location.hacc, t: t,
                                 speedMetersPerSecond: location.speed, speedAccuracyMetersPerSecond: location.speedAcc,
                                 courseDegrees: location.course, altitudeMeters: location.alt)
        track.movingAtLastGood = isMoving(location, activity: track.activity)
        if track.isDegraded {
            track.phase = .tracking
            track.settling = true
            counters.add("recovered")
        }
        if track.settling, location.hacc <= strategyAccuracy(track) {
            track.settling = false
            out += steer(&track, device: device, reason: "good fixes returned", t: t)
        }
        return out
    }

    private mutating func receiveMotion(_ motion: Motion, message: Message, topic: String, now: Double) -> [Outbound] {
        var out: [Outbound] = []
        guard let device = accept(motion.device, topic: topic, prefix: Topic.motionPrefix, message: message, now: now, out: &out),
              var track = devices[device] else { return out }
        defer {
            devices[device] = track
            reschedule(device, track)
        }
        let t = message.envelope.t
        guard ConfidenceRank(motion.confidence) >= configuration.minimumConfidence else {
            counters.add("lowConfidence")
            return out
        }
        counters.add("activities")
        let changed = !track.steered || track.activity != motion.activity
        track.activity = motion.activity
        track.steered = true
        if motion.activity == .stationary {
            if track.stationarySince == nil { track.stationarySince = t }
        } else {
            track.stationarySince = nil
            if track.paused {
                track.paused = false
                track.resumedAt = t
                return out + steer(&track, device: device, reason: "moving again (\(motion.activity.rawValue)): resumed", t: t)
            }
        }
        guard changed else { return out }
        out += steer(&track, device: device, reason: "activity \(motion.activity.rawValue)", t: t)
        return out
    }

    private mutating func receiveControl(_ control: Control, message: Message, topic: String, now: Double) -> [Outbound] {
        if let ownSource, message.envelope.src == ownSource {
            counters.add("ownControls")
            return []
        }
        guard let mode = control.powerMode else {
            counters.add("controlsIgnored")
            return []
        }
        var out: [Outbound] = []
        guard let device = accept(control.device, topic: topic, prefix: Topic.controlPrefix, message: message, now: now, out: &out),
              var track = devices[device] else { return out }
        defer {
            devices[device] = track
            reschedule(device, track)
        }
        if mode == .low {
            if let accuracy = control.desiredAccuracy, accuracy < configuration.lowPowerAccuracyMeters {
                out.append(reject("contradictoryControl", "powerMode low with desiredAccuracy \(accuracy) m finer than the low-power \(configuration.lowPowerAccuracyMeters) m",
                                  topic: topic, message: message, now: now))
                return out
            }
            if let filter = control.distanceFilter, filter < configuration.lowPowerDistanceFilterMeters {
                out.append(reject("contradictoryControl", "powerMode low with distanceFilter \(filter) m below the low-power \(configuration.lowPowerDistanceFilterMeters) m",
                                  topic: topic, message: message, now: now))
                return out
            }
        }
        counters.add("powerControls")
        track.lowPowerByControl = mode == .low
        track.steered = true
        out += steer(&track, device: device, reason: "power mode \(mode.rawValue) requested", t: message.envelope.t)
        return out
    }

    /// Whether a fused fix came from this service's own dead reckoning or cache.
    public static func isOwnDegradedFix(_ location: Location) -> Bool {
        location.mode == "dr" || location.mode == "cache" || location.source == "dr" || location.source == "cache"
    }

    // MARK: - Strategy

    /// Whether low power applies to a device: its control message, else the configuration or the supply.
    func isLowPower(_ track: DeviceTrack) -> Bool {
        track.lowPowerByControl ?? (configuration.lowPower || lowPowerBySupply == true)
    }

    /// Publishes the device's steering if it changed since the last published one.
    mutating func steer(_ track: inout DeviceTrack, device: String, reason: String, t: Double) -> [Outbound] {
        guard track.steered else { return [] }
        let steering = Steering.make(activity: track.activity, paused: track.paused, lowPower: isLowPower(track),
                                     degraded: track.isDegraded || track.settling, configuration: configuration)
        guard steering != track.steering else { return [] }
        track.steering = steering
        counters.add("controls")
        return [Outbound(topic: Topic.control(device), body: .control(steering.control(device: device, reason: reason)), t: t)]
    }

    /// The desired accuracy the device's strategy asks for when not degraded.
    private func strategyAccuracy(_ track: DeviceTrack) -> Double {
        Steering.make(activity: track.activity, paused: false, lowPower: isLowPower(track), degraded: false,
                      configuration: configuration).desiredAccuracyMeters
    }

    /// Re-steers every device after the power supply's state changed.
    public mutating func powerSupplyChanged(lowPower: Bool?, now: Double) -> [Outbound] {
        guard lowPower != lowPowerBySupply else { return [] }
        lowPowerBySupply = lowPower
        var out: [Outbound] = []
        for device in devices.keys.sorted() {
            guard var track = devices[device] else { continue }
            out += steer(&track, device: device, reason: lowPower == true ? "battery low: low power" : "power supply normal", t: now)
            devices[device] = track
            reschedule(device, track)
        }
        return out
    }

    private mutating func checkPause(_ track: inout DeviceTrack, device: String, now: Double) -> [Outbound] {
        let deviceNow = track.clock.deviceTime(at: now)
        guard !track.paused, let since = track.stationarySince, deviceNow - since >= configuration.pauseAfterSeconds else { return [] }
        track.paused = true
        if track.isDegraded { track.phase = .tracking }
        track.settling = false
        return steer(&track, device: device, reason: "stationary for \(Int(deviceNow - since)) s: paused", t: deviceNow)
    }

    // MARK: - Checks

    /// The device a message is about, after checking the topic names it and it is known.
    private mutating func accept(_ device: String, topic: String, prefix: String, message: Message, now: Double,
                                 out: inout [Outbound]) -> String? {
        guard Topic.topic(topic, is: prefix, plus: device) else {
            out.append(reject("deviceMismatch", "topic \(topic) does not name device \(device)", topic: topic, message: message, now: now))
            return nil
        }
        if !configuration.devices.isEmpty, !configuration.devices.contains(device) {
            out.append(reject("unknownDevice", "device \(device) is not configured", topic: topic, message: message, now: now))
            return nil
        }
        if devices[device] == nil {
            if let refusal = DeviceCap(maximum: configuration.maximumDevices).refusal(known: devices.count) {
                // reject counts "rejected.<code>": DeviceCap.counter, as fusion counts it.
                out.append(reject(refusal.code, refusal.message, topic: topic, message: message, now: now))
                return nil
            }
            devices[device] = DeviceTrack()
        }
        return device
    }

    private mutating func reject(_ code: String, _ text: String, topic: String, message: Message, now: Double) -> Outbound {
        counters.add("rejected." + code)
        let report = ErrorReport(code: code, message: text, topic: topic, ref: message.envelope.id)
        return Outbound(topic: Topic.error(Self.service), body: .error(report), t: now)
    }
}
