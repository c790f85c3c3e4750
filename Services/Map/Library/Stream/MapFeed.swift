public import LocusProtocol

/// Turns bus messages into page events for one kind of viewer, and remembers enough
/// (track tails, regions, recent events, last motion and health) that a page opened
/// later starts with the current picture instead of an empty map.
///
/// Privacy: the feed subscribes only to what its viewer may see. A reduced viewer gets
/// `location.approx.*` and region events whose fix is replaced by the device's last
/// approximate fix (or removed), as fine positions must never reach it.
public struct MapFeed: Sendable {
    public let accuracy: ClientAccuracy
    /// Fixes kept per device for the track tail.
    public var trackLength = 120
    /// Devices remembered; the least recently heard one is forgotten beyond it.
    public var maximumDevices = 1000
    /// Region events replayed to a new page.
    public var recentEventCount = 100
    /// Regions remembered (per feed, all owners).
    public var maximumRegions = 10_000

    private var tracks: [String: [MapEvent]] = [:]
    private var deviceOrder: [String] = []
    private var approxFix: [String: FixRef] = [:]
    private var motion: [String: MapEvent] = [:]
    private var health: [String: MapEvent] = [:]
    /// The bus's own latest health: it says who published each service's health.
    private var busHealth: Health?
    private var regions: [RegionKey: MapEvent] = [:]
    private var regionOrder: [RegionKey] = []
    private var events: [MapEvent] = []

    private struct RegionKey: Hashable, Sendable {
        var owner: String
        var id: String
    }

    public init(accuracy: ClientAccuracy) {
        self.accuracy = accuracy
    }

    /// The topic prefixes to subscribe to; nothing finer than the viewer may see.
    public var subscriptions: [String] {
        [accuracy.locationPrefix] + (accuracy.latePrefix.map { [$0] } ?? [])
            + [Topic.regionEventPrefix, Topic.regionStatePrefix, Topic.motionPrefix, Topic.healthPrefix]
    }

    /// The page event for a bus message (nil when it is not for this viewer), remembering it for replay.
    public mutating func accept(topic: String, message: Message, raw: [UInt8]) -> MapEvent? {
        switch message.body {
        case .location(let location) where accuracy.latePrefix.map(topic.hasPrefix) == true:
            let event = MapEvent(kind: .late, json: raw)
            remember(location: event, device: location.device)
            return event
        case .location(let location):
            guard topic.hasPrefix(accuracy.locationPrefix) else { return nil }
            let event = MapEvent(kind: .location, json: raw)
            remember(location: event, device: location.device)
            if accuracy == .reduced {
                approxFix[location.device] = FixRef(lat: location.lat, lon: location.lon, hacc: location.hacc, t: message.envelope.t)
            }
            return event
        case .motion(let value):
            guard topic.hasPrefix(Topic.motionPrefix) else { return nil }
            let event = MapEvent(kind: .motion, json: raw)
            if motion[value.device] != nil || motion.count < maximumDevices { motion[value.device] = event }
            return event
        case .health(let value):
            guard topic.hasPrefix(Topic.healthPrefix) else { return nil }
            if value.service == "bus" { busHealth = value }
            let event = MapEvent(kind: .health, json: Self.attributed(raw, sender: busHealth?.sender(of: value.service)))
            if health[value.service] != nil || health.count < 256 { health[value.service] = event }
            return event
        case .regionEvent(let value):
            guard topic.hasPrefix(Topic.regionEventPrefix) else { return nil }
            let json = accuracy == .full ? raw : Self.coarsened(raw, fix: approxFix[value.device])
            guard !json.isEmpty else { return nil }
            let event = MapEvent(kind: .regionEvent, json: json)
            events.append(event)
            if events.count > recentEventCount { events.removeFirst(events.count - recentEventCount) }
            return event
        case .regionAdded(let added):
            guard topic.hasPrefix(Topic.regionStatePrefix) else { return nil }
            let event = MapEvent(kind: .region, json: raw)
            store(region: event, key: RegionKey(owner: added.owner, id: added.region.id))
            return event
        case .regionRemoved(let removed):
            guard topic.hasPrefix(Topic.regionStatePrefix) else { return nil }
            let key = RegionKey(owner: removed.owner, id: removed.regionId)
            regions[key] = nil
            regionOrder.removeAll { $0 == key }
            return MapEvent(kind: .region, json: raw)
        case .regionList(let list):
            guard topic.hasPrefix(Topic.regionStatePrefix) else { return nil }
            // A list is the owner's whole set: forget what it no longer holds, remember each region on its own.
            let keep = Set(list.regions.map { RegionKey(owner: list.owner, id: $0.id) })
            for key in regionOrder where key.owner == list.owner && !keep.contains(key) { regions[key] = nil }
            regionOrder.removeAll { $0.owner == list.owner && !keep.contains($0) }
            for region in list.regions {
                let added = Message(body: .regionAdded(RegionAdded(owner: list.owner, region: region)),
                                    id: message.envelope.id + "/" + region.id, t: message.envelope.t, src: message.envelope.src)
                store(region: MapEvent(kind: .region, json: MessageCodec.encode(added)), key: RegionKey(owner: list.owner, id: region.id))
            }
            return MapEvent(kind: .region, json: raw)
        case .regionFailed:
            return topic.hasPrefix(Topic.regionStatePrefix) ? MapEvent(kind: .region, json: raw) : nil
        default:
            return nil
        }
    }

    /// What a newly connected page is sent first: regions, track tails, motion, health, recent events.
    /// Beyond `maximumBytes` the track tails shrink to each device's last fix, then the oldest
    /// entries are left out, so a new page never costs more than its queue holds.
    public func replay(maximumBytes: Int = .max) -> [MapEvent] {
        let full = replayEvents(tailLength: trackLength)
        if Self.size(full) <= maximumBytes { return full }
        let short = replayEvents(tailLength: 1)
        var excess = Self.size(short) - maximumBytes
        var dropped = 0
        while excess > 0, dropped < short.count {
            excess -= Self.size([short[dropped]])
            dropped += 1
        }
        return Array(short.dropFirst(dropped))
    }

    private func replayEvents(tailLength: Int) -> [MapEvent] {
        var out = regionOrder.compactMap { regions[$0] }
        for device in deviceOrder { out += (tracks[device] ?? []).suffix(tailLength) }
        out += motion.keys.sorted().compactMap { motion[$0] }
        out += health.keys.sorted().compactMap { health[$0] }
        return out + events
    }

    private static func size(_ events: [MapEvent]) -> Int { events.reduce(0) { $0 + $1.json.count + 32 } }

    private mutating func remember(location event: MapEvent, device: String) {
        if var track = tracks[device] {
            track.append(event)
            if track.count > trackLength { track.removeFirst(track.count - trackLength) }
            tracks[device] = track
            if let index = deviceOrder.firstIndex(of: device) { deviceOrder.remove(at: index) }
        } else {
            tracks[device] = [event]
            if deviceOrder.count >= maximumDevices {
                let oldest = deviceOrder.removeFirst()
                tracks[oldest] = nil
                approxFix[oldest] = nil
            }
        }
        deviceOrder.append(device)
    }

    private mutating func store(region event: MapEvent, key: RegionKey) {
        if regions[key] == nil {
            if regionOrder.count >= maximumRegions { regions[regionOrder.removeFirst()] = nil }
            regionOrder.append(key)
        }
        regions[key] = event
    }

    /// A health body with `sender` added (who published it, as the bus saw it), so the page can say it.
    static func attributed(_ raw: [UInt8], sender: String?) -> [UInt8] {
        guard let sender, case .object(var members)? = try? JSONValue(parsing: raw) else { return raw }
        members["sender"] = .string(sender)
        return JSONValue.object(members).jsonBytes
    }

    /// A region event body for a reduced viewer: its `location` becomes the device's last
    /// approximate fix, or is removed when none is known yet.
    static func coarsened(_ raw: [UInt8], fix: FixRef?) -> [UInt8] {
        guard case .object(var members)? = try? JSONValue(parsing: raw) else { return [] }
        members["location"] = fix.map { .object(["lat": .number($0.lat), "lon": .number($0.lon), "hacc": .number($0.hacc), "t": .number($0.t)]) }
        members["crossingTime"] = nil
        members["approximate"] = .bool(true)
        return JSONValue.object(members).jsonBytes
    }
}
