import Foundation
import LocusGeo

/// A destination set for a device (`locus destination set`): progress notifications each
/// time the device gets a step closer, one arrival inside the radius, then it is cleared.
struct Destination: Codable, Equatable {
    /// The id of the `destination.set` message, part of every notification id it yields.
    var id: String
    var device: String
    var lat: Double
    var lon: Double
    var radiusMeters: Double
    var stepMeters: Double
    /// floor(distance / step) at the last progress notification.
    var lastBucket: Int?

    enum Progress: Equatable {
        case none
        case progress(distanceMeters: Double, bucket: Int)
        case arrived(distanceMeters: Double)
    }

    /// What a fix at (lat, lon) means for this destination; updates `lastBucket`.
    mutating func update(lat: Double, lon: Double) -> Progress {
        let distance = Geodesic.distance(Coordinate(lat: lat, lon: lon), Coordinate(lat: self.lat, lon: self.lon))
        if distance <= radiusMeters { return .arrived(distanceMeters: distance) }
        let bucket = Int(distance / stepMeters)
        if let lastBucket, bucket >= lastBucket { return .none }
        lastBucket = bucket
        return .progress(distanceMeters: distance, bucket: bucket)
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    static func decode(_ json: String) -> Destination? {
        try? JSONDecoder().decode(Destination.self, from: Data(json.utf8))
    }
}
