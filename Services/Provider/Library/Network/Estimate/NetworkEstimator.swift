import Foundation
public import LocusGeo

/// A position from the beacons one scan heard, with an honest 68 % radius.
///
/// 1. Each beacon's distance is read from its signal (`PathLossModel`), at least 10 m and
///    capped by its coverage; a beacon without a signal (a serving cell) is a share of its
///    radius away (`noSignalShare`).
/// 2. Beacons heard together must be near each other: two are consistent when their
///    positions are no farther apart than both reaches (coverage or twice the distance
///    read from the signal, 50 m … the kind's largest radius). The beacon with the most
///    consistent company anchors the group; beacons inconsistent with it, or with most of
///    the group, are rejected — an access point that moved, a hotspot on a bus.
/// 3. The position is the weighted mean of the group with weights 1 / (E[d²] + σ²), E[d²]
///    being the expected squared distance under the shadowing and σ the uncertainty of the
///    beacon's stored position (its radius over √samples, and a quarter of the radius that
///    more sightings from the same streets never remove). A beacon farther from the mean of
///    the others than its distance can explain is dropped and the mean taken again.
/// 4. If the beacons lay in independent directions around the device and their stored
///    positions erred independently, the mean's error would have variance 1 / Σw. Stored
///    positions learned along the same streets share part of their error, so a share
///    `correlatedShare` of the weighted mean position uncertainty σ̄ is added whole:
///    `hacc` = `haccScale` · √(1 / Σw + correlatedShare · σ̄²), at least `minimumHacc`. Scale
///    and share were calibrated on the simulated city (docs/network.md) on seeds 101–104,
///    which the benchmark does not score.
public struct NetworkEstimator: Sendable {
    /// One beacon of a scan with what the database knows about it.
    public struct Beacon: Sendable, Equatable {
        public var position: Coordinate
        public var radius: Double
        public var samples: Int
        public var signalDBm: Double?

        public init(position: Coordinate, radius: Double, samples: Int, signalDBm: Double?) {
            self.position = position
            self.radius = radius
            self.samples = samples
            self.signalDBm = signalDBm
        }
    }

    public struct Estimate: Sendable, Equatable {
        public var position: Coordinate
        public var hacc: Double
        /// Indexes (into the input) of the beacons the position rests on.
        public var used: [Int]
        /// Indexes of beacons rejected as inconsistent with the rest.
        public var rejected: [Int]
    }

    public var kind: BeaconKind
    public var pathLoss: PathLossModel
    public var haccScale = 1.25
    public var correlatedShare = 0.3
    /// Root mean square distance from a beacon heard without a signal level (a serving cell),
    /// as a share of its radius: a serving cell is usually the nearest, so it is well below
    /// the √½ of a uniform disk.
    public var noSignalShare = 0.3
    public var minimumHacc: Double

    public init(kind: BeaconKind, pathLoss: PathLossModel = .wifiTypical) {
        self.kind = kind
        self.pathLoss = pathLoss
        minimumHacc = kind == .wifi ? 10 : 100
    }

    /// The estimate, or nil when `beacons` is empty or holds an invalid position.
    public func estimate(_ beacons: [Beacon]) -> Estimate? {
        guard !beacons.isEmpty, beacons.allSatisfy({ $0.position.isValid && $0.radius.isFinite }) else { return nil }
        let origin = beacons[0].position
        let plane = LocalTangentPlane(origin: origin)
        let points = beacons.map { plane.project($0.position) }
        let terms = beacons.map(term)
        var group = consistentGroup(points: points, terms: terms)
        var rejected = Set(beacons.indices).subtracting(group)
        var mean = weightedMean(group, points: points, terms: terms)
        for _ in 0..<3 where group.count > 2 {
            // The member farthest beyond what its distance explains from the mean of the
            // others (so a beacon that dominates the mean cannot hide behind it), if any.
            let total = group.sorted().reduce(0) { $0 + terms[$1].weight }
            let worst = group.sorted().map { index -> (index: Int, excess: Double) in
                let w = terms[index].weight
                let others = (east: (mean.east * total - w * points[index].east) / (total - w),
                              north: (mean.north * total - w * points[index].north) / (total - w))
                let residual = hypot(points[index].east - others.east, points[index].north - others.north)
                return (index, residual / terms[index].residualLimit)
            }.max { $0.excess < $1.excess }
            guard let worst, worst.excess > 1 else { break }
            group.remove(worst.index)
            rejected.insert(worst.index)
            mean = weightedMean(group, points: points, terms: terms)
        }
        let members = group.sorted()
        let totalWeight = members.reduce(0) { $0 + terms[$1].weight }
        let common = members.reduce(0) { $0 + terms[$1].weight * terms[$1].positionSigma } / totalWeight
        let hacc = max(minimumHacc, haccScale * (1 / totalWeight + correlatedShare * common * common).squareRoot())
        guard hacc.isFinite else { return nil }
        return Estimate(position: plane.unproject(east: mean.east, north: mean.north), hacc: hacc,
                        used: members, rejected: rejected.sorted())
    }

    /// What one beacon contributes: its weight, its reach for the consistency test, and the
    /// residual beyond which it cannot be where it is said to be.
    struct Term {
        var weight: Double
        var positionSigma: Double
        var reach: Double
        var residualLimit: Double
    }

    func term(_ beacon: Beacon) -> Term {
        let radius = min(max(beacon.radius, kind.minimumRadiusMeters), kind.maximumRadiusMeters)
        // The stored position's own uncertainty: the spread of where it was heard, shrinking with
        // evidence along the streets the sightings were made from, never across them (a quarter
        // of the coverage stays).
        let positionSigma = max(5, (radius * radius / Double(max(1, beacon.samples)) + 0.0625 * radius * radius).squareRoot())
        let distance: Double
        let meanSquare: Double
        if let signal = beacon.signalDBm, signal.isFinite {
            let sigma = pathLoss.logDistanceSigma
            // A signal level cannot place a device closer than 10 m (antennas, walls, bodies).
            distance = min(max(pathLoss.distance(forSignal: signal), 10), max(1.5 * radius, 30))
            meanSquare = distance * distance * exp(2 * sigma * sigma)
        } else {
            distance = radius * noSignalShare
            meanSquare = distance * distance
        }
        let reach = min(max(radius, 2 * distance, 50), kind.maximumRadiusMeters)
        let residualLimit = 3 * meanSquare.squareRoot() + 3 * positionSigma + 20
        return Term(weight: 1 / (meanSquare + positionSigma * positionSigma), positionSigma: positionSigma, reach: reach,
                    residualLimit: residualLimit)
    }

    /// The anchor's consistent company, without members inconsistent with most of it.
    func consistentGroup(points: [(east: Double, north: Double)], terms: [Term]) -> Set<Int> {
        let count = points.count
        guard count > 1 else { return Set(points.indices) }
        var consistent = [[Bool]](repeating: [Bool](repeating: false, count: count), count: count)
        for i in 0..<count {
            for j in i..<count {
                let apart = hypot(points[i].east - points[j].east, points[i].north - points[j].north)
                let ok = i == j || apart <= terms[i].reach + terms[j].reach
                consistent[i][j] = ok
                consistent[j][i] = ok
            }
        }
        let score = (0..<count).map { i in (0..<count).reduce(0.0) { consistent[i][$1] ? $0 + terms[$1].weight : $0 } }
        let anchor = (0..<count).max { score[$0] < score[$1] || (score[$0] == score[$1] && $0 > $1) } ?? 0
        var group = Set((0..<count).filter { consistent[anchor][$0] })
        while group.count > 2 {
            let links = group.map { i in (i, group.filter { consistent[i][$0] }.count) }
            guard let weakest = links.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 > $1.0) }),
                  Double(weakest.1) * 2 <= Double(group.count), weakest.0 != anchor else { break }
            group.remove(weakest.0)
        }
        return group
    }

    func weightedMean(_ group: Set<Int>, points: [(east: Double, north: Double)], terms: [Term]) -> (east: Double, north: Double) {
        var east = 0.0, north = 0.0, total = 0.0
        for index in group.sorted() {  // a fixed order: the same scan gives the same bits
            east += terms[index].weight * points[index].east
            north += terms[index].weight * points[index].north
            total += terms[index].weight
        }
        return total > 0 ? (east / total, north / total) : (0, 0)
    }
}
