public import Foundation

/// The OwnTracks `_type: transition` message a region event becomes on MQTT, so an
/// OwnTracks recorder or Home Assistant's OwnTracks integration can consume Locus events.
public struct OwnTracksTransition: Sendable, Equatable {
    public var topic: String
    public var payload: [String: Any] { fields.mapValues(\.value) }
    let fields: [String: OwnTracksValue]

    /// nil for kinds OwnTracks has no transition for (only enter and exit exist there).
    public init?(_ record: NotificationRecord, user: String) {
        let event: String
        switch record.kind {
        case .enter: event = "enter"
        case .exit: event = "leave"
        default: return nil
        }
        let device = record.device ?? "unknown"
        topic = "owntracks/\(user)/\(device)/event"
        var fields: [String: OwnTracksValue] = [
            "_type": .text("transition"), "event": .text(event), "t": .text("c"),
            "tst": .integer(Int(record.t)), "wtim": .integer(Int(record.t)),
            "tid": .text(String(device.suffix(2))), "desc": .text(record.region ?? ""),
            "id": .text(record.id),
        ]
        if let lat = record.lat { fields["lat"] = .real(lat) }
        if let lon = record.lon { fields["lon"] = .real(lon) }
        if let accuracy = record.accuracyMeters { fields["acc"] = .integer(Int(accuracy.rounded())) }
        self.fields = fields
    }

    public func json() -> Data {
        (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data("{}".utf8)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.topic == rhs.topic && lhs.fields == rhs.fields }
}

enum OwnTracksValue: Sendable, Equatable {
    case text(String)
    case integer(Int)
    case real(Double)

    var value: Any {
        switch self {
        case .text(let text): return text
        case .integer(let number): return number
        case .real(let number): return number
        }
    }
}
