public import Foundation

/// One notification as stored in the outbox and handed to every sink. Its `id` is derived
/// from the event it is about, so a replayed event maps to the same id and receivers
/// (webhooks via `Idempotency-Key`, JSONL readers) can drop repeats.
public struct NotificationRecord: Sendable, Equatable, Codable {
    public var id: String
    /// The id of the event (or request) it is about.
    public var ref: String
    public var kind: NotificationKind
    public var title: String
    public var body: String
    public var locale: String
    /// Time of the event, seconds since the Unix epoch.
    public var t: Double
    public var device: String?
    public var owner: String?
    public var region: String?
    /// For merged notifications: every region entered.
    public var regions: [String]?
    public var lat: Double?
    public var lon: Double?
    public var accuracyMeters: Double?
    public var distanceMeters: Double?

    public init(id: String, ref: String, kind: NotificationKind, title: String, body: String, locale: String, t: Double,
                device: String? = nil, owner: String? = nil, region: String? = nil, regions: [String]? = nil,
                lat: Double? = nil, lon: Double? = nil, accuracyMeters: Double? = nil, distanceMeters: Double? = nil) {
        self.id = id
        self.ref = ref
        self.kind = kind
        self.title = title
        self.body = body
        self.locale = locale
        self.t = t
        self.device = device
        self.owner = owner
        self.region = region
        self.regions = regions
        self.lat = lat
        self.lon = lon
        self.accuracyMeters = accuracyMeters
        self.distanceMeters = distanceMeters
    }

    /// Compact JSON with sorted keys: the line a JSONL sink writes and the body a webhook posts.
    /// The bytes Foundation's `JSONEncoder` writes with `.sortedKeys` and
    /// `.withoutEscapingSlashes`, written by hand (`appendJSON`): the encoder cost more than
    /// the rest of a notification's path.
    public func json() -> Data {
        var bytes: [UInt8] = []
        appendJSON(to: &bytes)
        return Data(bytes)
    }

    public static func decode(_ data: Data) throws -> NotificationRecord {
        try JSONDecoder().decode(NotificationRecord.self, from: data)
    }

    /// Flat `LOCUS_*` variables for an exec sink, so a shell script needs no JSON parser.
    public var environment: [String: String] {
        var values = ["LOCUS_NOTIFICATION_ID": id, "LOCUS_REF": ref, "LOCUS_KIND": kind.rawValue,
                      "LOCUS_TITLE": title, "LOCUS_BODY": body, "LOCUS_LOCALE": locale, "LOCUS_T": String(t)]
        if let device { values["LOCUS_DEVICE"] = device }
        if let owner { values["LOCUS_OWNER"] = owner }
        if let region { values["LOCUS_REGION"] = region }
        if let lat { values["LOCUS_LAT"] = String(lat) }
        if let lon { values["LOCUS_LON"] = String(lon) }
        if let distanceMeters { values["LOCUS_DISTANCE_METERS"] = String(distanceMeters) }
        return values
    }
}
