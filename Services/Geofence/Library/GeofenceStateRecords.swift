import Foundation
public import LocusProtocol
public import LocusService

/// The geofence's state as self-contained records for a key-value store that has no
/// transactions across keys: one record per region and one per device. A device's record
/// holds everything the geofence must know about it together — its committed region
/// states, `checkedThrough`, its last fix and the events kept until confirmed — so writing
/// it is one atomic step: after a kill, each device's state, its last fix (which re-delivered
/// fixes are already done) and its unsent events agree.
public enum GeofenceStateRecords {
    public struct Device: Sendable, Equatable {
        public var checkedThrough = 0
        public var lastFix: FixRef?
        /// Committed states other than outside (a missing track reads as outside).
        public var tracks: [PersistedTrack] = []
        public var kept: [KeptMessage] = []

        public init() {}
    }

    private struct DeviceJSON: Codable {
        var checked: Int
        var fix: [Double]?
        var tracks: [TrackJSON]
        var kept: [KeptJSON]?
    }

    private struct TrackJSON: Codable {
        var owner: String
        var region: String
        var generation: Int
        var state: String
        var cause: String
        var enteredAt: Double?
        var dwellFired: Bool
    }

    private struct KeptJSON: Codable {
        var topic: String
        var message: String
    }

    private struct RegionJSON: Codable {
        var generation: Int
        var add: String
    }

    public static func encode(_ device: Device) -> [UInt8] {
        let json = DeviceJSON(
            checked: device.checkedThrough,
            fix: device.lastFix.map { [$0.lat, $0.lon, $0.hacc, $0.t] },
            tracks: device.tracks.map {
                TrackJSON(owner: $0.key.owner, region: $0.key.id, generation: $0.generation, state: $0.state.rawValue,
                          cause: $0.entryCause.rawValue, enteredAt: $0.enteredAt, dwellFired: $0.dwellFired)
            },
            kept: device.kept.isEmpty ? nil : device.kept.map {
                KeptJSON(topic: $0.topic, message: String(decoding: MessageCodec.encode($0.message), as: UTF8.self))
            })
        return Array((try? JSONEncoder().encode(json)) ?? Data())
    }

    /// Nil for a record that is not one (written by something else, or damaged).
    public static func device(_ bytes: [UInt8], name: String) -> Device? {
        guard let json = try? JSONDecoder().decode(DeviceJSON.self, from: Data(bytes)) else { return nil }
        var device = Device()
        device.checkedThrough = json.checked
        if let fix = json.fix, fix.count == 4 { device.lastFix = FixRef(lat: fix[0], lon: fix[1], hacc: fix[2], t: fix[3]) }
        device.tracks = json.tracks.compactMap { track in
            guard let state = RegionState(rawValue: track.state), let cause = RegionEventCause(rawValue: track.cause) else { return nil }
            return PersistedTrack(device: name, key: RegionKey(owner: track.owner, id: track.region), generation: track.generation,
                                  state: state, entryCause: cause, enteredAt: track.enteredAt, dwellFired: track.dwellFired)
        }
        device.kept = (json.kept ?? []).compactMap { kept in
            (try? MessageCodec.decode(kept.message)).map { KeptMessage(topic: kept.topic, message: $0) }
        }
        return device
    }

    public static func encode(_ region: PersistedRegion) -> [UInt8] {
        let add = Message(body: .regionAdd(RegionAdd(owner: region.owner, region: region.region)), id: "stored", t: 0, src: "geofence/state")
        let json = RegionJSON(generation: region.generation, add: String(decoding: MessageCodec.encode(add), as: UTF8.self))
        return Array((try? JSONEncoder().encode(json)) ?? Data())
    }

    public static func region(_ bytes: [UInt8]) -> PersistedRegion? {
        guard let json = try? JSONDecoder().decode(RegionJSON.self, from: Data(bytes)),
              let message = try? MessageCodec.decode(json.add), case .regionAdd(let add) = message.body else { return nil }
        return PersistedRegion(owner: add.owner, region: add.region, generation: json.generation)
    }
}
