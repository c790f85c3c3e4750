public import LocusGeo

/// Core Location's visits: an arrival once the device has stayed within `radiusMeters` of a
/// place for `minimumStaySeconds`, a departure when a fix leaves that radius. All times come
/// from the fixes, so a replay yields the same visits. Fixes less precise than the radius
/// cannot tell staying from leaving and are ignored.
public struct VisitDetector: Sendable, Equatable {
    /// A visit event: arrival (departure nil) or the completed visit.
    public struct Event: Sendable, Equatable {
        public var center: Coordinate
        public var haccMeters: Double
        public var arrival: Double
        public var departure: Double?
    }

    public var radiusMeters: Double
    public var minimumStaySeconds: Double

    /// The place being watched: where the stay started and the running mean of its fixes.
    private var anchor: Coordinate?
    private var start = 0.0
    private var lastInside = 0.0
    /// The newest late fix seen outside the place: the stay cannot have begun before it.
    private var lateOutside = -Double.infinity
    private var sumLat = 0.0, sumLon = 0.0, sumHacc = 0.0, count = 0.0
    public private(set) var arrived = false

    public init(radiusMeters: Double = 100, minimumStaySeconds: Double = 300) {
        self.radiusMeters = radiusMeters
        self.minimumStaySeconds = minimumStaySeconds
    }

    /// Feeds one fused fix; returns an arrival or departure when one happens.
    public mutating func observe(_ coordinate: Coordinate, haccMeters: Double, t: Double) -> Event? {
        guard haccMeters <= radiusMeters else { return nil }
        guard let anchor else {
            begin(at: coordinate, haccMeters: haccMeters, t: t)
            return nil
        }
        if FastDistance.meters(anchor, coordinate) <= radiusMeters {
            sumLat += coordinate.lat; sumLon += coordinate.lon; sumHacc += haccMeters; count += 1
            lastInside = t
            if !arrived && t - start >= minimumStaySeconds {
                arrived = true
                return Event(center: center, haccMeters: visitHacc, arrival: start, departure: nil)
            }
            return nil
        }
        let departure = arrived ? Event(center: center, haccMeters: visitHacc, arrival: start, departure: t) : nil
        begin(at: coordinate, haccMeters: haccMeters, t: t)
        return departure
    }

    /// Feeds a fix older than those already observed (uploaded late). It can only tell more
    /// about the stay under way: inside the place and before the stay began, it moves the stay's
    /// start back (and may complete an arrival the newer fixes alone did not); outside the place
    /// and after it began, the stay cannot have begun before it. Departures are not found late.
    public mutating func observeLate(_ coordinate: Coordinate, haccMeters: Double, t: Double) -> Event? {
        guard haccMeters <= radiusMeters, let anchor, t < lastInside else { return nil }
        guard FastDistance.meters(anchor, coordinate) <= radiusMeters else {
            lateOutside = max(lateOutside, t)
            if t > start, !arrived { start = t }
            return nil
        }
        guard t < start, t > lateOutside else { return nil }
        start = t
        sumLat += coordinate.lat; sumLon += coordinate.lon; sumHacc += haccMeters; count += 1
        guard !arrived, lastInside - start >= minimumStaySeconds else { return nil }
        arrived = true
        return Event(center: center, haccMeters: visitHacc, arrival: start, departure: nil)
    }

    private var center: Coordinate { Coordinate(lat: sumLat / count, lon: sumLon / count) }
    private var visitHacc: Double { max(sumHacc / count, 1) }

    private mutating func begin(at coordinate: Coordinate, haccMeters: Double, t: Double) {
        anchor = coordinate
        start = t
        lastInside = t
        lateOutside = -.infinity
        arrived = false
        sumLat = coordinate.lat; sumLon = coordinate.lon; sumHacc = haccMeters; count = 1
    }
}
