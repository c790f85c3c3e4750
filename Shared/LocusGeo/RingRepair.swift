/// Fixes the common defects of polygon rings found in real files, for
/// `locus regions import --repair`, and says what it changed: repeated positions, spikes
/// (a vertex the ring runs out to and straight back from), a ring not closed (its last
/// position is not its first), and a ring crossing the antimeridian (written with
/// longitudes that jump by about 360°), which is split there into parts on either side as
/// RFC 7946 §3.1.9 asks. A ring that crosses itself is not guessed at: it stays refused.
public enum RingRepair {
    /// A polygon (outer ring, then holes) after repair: one part, or several when it
    /// crossed the antimeridian; and one line per change.
    public struct Result: Sendable, Equatable {
        public var parts: [[[Coordinate]]]
        public var changes: [String]
    }

    public static func repair(polygon rings: [[Coordinate]]) -> Result {
        var changes: [String] = []
        var cleaned: [[Coordinate]] = []
        for (number, ring) in rings.enumerated() {
            let name = number == 0 ? "outer ring" : "hole \(number)"
            cleaned.append(repair(ring: ring, name: name, changes: &changes))
        }
        guard cleaned.contains(where: crossesAntimeridian) else { return Result(parts: [cleaned], changes: changes) }
        // Unwrapped rings run past ±180°: clip each to the two sides and shift the far side back.
        let unwrapped = cleaned.map(unwrap)
        let east = unwrapped.first.map { ($0.map(\.lon).max() ?? 0) > 180 } ?? true
        let seam = east ? 180.0 : -180.0
        var near: [[Coordinate]] = [], far: [[Coordinate]] = []
        for ring in unwrapped {
            let inside = clip(ring, keepBelow: east, at: seam)
            let outside = clip(ring, keepBelow: !east, at: seam).map { Coordinate(lat: $0.lat, lon: $0.lon + (east ? -360 : 360)) }
            if inside.count >= 4 { near.append(inside) }
            if outside.count >= 4 { far.append(outside) }
        }
        let parts = [near, far].filter { !$0.isEmpty }
        changes.append("crossed the antimeridian: split at \(Int(seam))° into \(parts.count) parts")
        return Result(parts: parts, changes: changes)
    }

    /// One ring: repeated positions dropped, spikes cut, closed.
    static func repair(ring input: [Coordinate], name: String, changes: inout [String]) -> [Coordinate] {
        var ring = input
        if let first = ring.first, let last = ring.last, first != last {
            ring.append(first)
            changes.append("\(name): was not closed; its first position was added at the end")
        }
        var points = Array(ring.dropLast())
        let before = points.count
        points = points.enumerated().filter { $0.offset == 0 || $0.element != points[$0.offset - 1] }.map(\.element)
        while points.count > 1 && points.last == points.first { points.removeLast() }
        if points.count < before { changes.append("\(name): removed \(before - points.count) repeated position(s)") }
        var spikes = 0
        var changed = true
        while changed && points.count > 3 {
            changed = false
            for i in 0..<points.count {
                let a = points[(i + points.count - 1) % points.count], v = points[i], b = points[(i + 1) % points.count]
                if isSpike(a, v, b) {
                    points.remove(at: i)
                    // Cutting a spike can leave its two sides' ends equal.
                    if points.count > 1 && points[i % points.count] == points[(i + points.count - 1) % points.count] {
                        points.remove(at: i % points.count)
                    }
                    spikes += 1
                    changed = true
                    break
                }
            }
        }
        if spikes > 0 { changes.append("\(name): removed \(spikes) spike(s)") }
        return points + points.prefix(1)
    }

    /// v is a spike when the ring runs a → v and comes straight back along the same line.
    static func isSpike(_ a: Coordinate, _ v: Coordinate, _ b: Coordinate) -> Bool {
        guard PlanarGeometry.cross(a, v, b) == 0 else { return false }
        let out = (v.lon - a.lon, v.lat - a.lat), back = (b.lon - v.lon, b.lat - v.lat)
        return out.0 * back.0 + out.1 * back.1 < 0
    }

    static func crossesAntimeridian(_ ring: [Coordinate]) -> Bool {
        zip(ring, ring.dropFirst()).contains { abs($0.lon - $1.lon) > 180 }
    }

    /// Longitudes made continuous (each step under 180°), so the ring may run past ±180°.
    static func unwrap(_ ring: [Coordinate]) -> [Coordinate] {
        guard var previous = ring.first else { return ring }
        var result = [previous]
        for c in ring.dropFirst() {
            var lon = c.lon
            while lon - previous.lon > 180 { lon -= 360 }
            while lon - previous.lon < -180 { lon += 360 }
            previous = Coordinate(lat: c.lat, lon: lon)
            result.append(previous)
        }
        return result
    }

    /// The ring clipped to the side of the meridian `at` (longitudes ≤ at when
    /// `keepBelow`, ≥ otherwise), closed; Sutherland–Hodgman against one half-plane.
    static func clip(_ ring: [Coordinate], keepBelow: Bool, at seam: Double) -> [Coordinate] {
        func keeps(_ c: Coordinate) -> Bool { keepBelow ? c.lon <= seam : c.lon >= seam }
        var out: [Coordinate] = []
        for (a, b) in zip(ring, ring.dropFirst()) {
            if keeps(a) { out.append(a) }
            if keeps(a) != keeps(b) && a.lon != seam && b.lon != seam {
                let t = (seam - a.lon) / (b.lon - a.lon)
                out.append(Coordinate(lat: a.lat + t * (b.lat - a.lat), lon: seam))
            }
        }
        guard let first = out.first else { return [] }
        if out.last != first { out.append(first) }
        return out
    }
}
