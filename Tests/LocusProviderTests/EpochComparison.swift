import Foundation

/// The acceptance figures for one log: how a candidate decoder's fixes compare with
/// gpsd's golden fix epochs (TPVs with mode ≥ 2 grouped by time).
///
/// Epochs are matched on time of day to the millisecond, not on the full date: gpsd
/// and `gpsdecode` disagree on dates for logs whose receivers report bad or no dates
/// (week rollover, two-digit years, GGA-only logs), while the time stamp is what the
/// receiver sent. `sameDate` counts matched epochs whose dates also agree.
struct EpochComparison {
    var goldenEpochs = 0
    var matched = 0
    var exact = 0
    var within3m = 0
    var candidateFixes = 0
    var extra = 0
    var sameDate = 0

    /// `goldenUntimed`: fixes gpsd reported without a time (it knew no date yet). A
    /// candidate fix at exactly such a position is one gpsd had too, so it is not
    /// counted as extra; there is no time to match it on.
    init(golden: [TimedPosition], candidate: [TimedPosition], goldenUntimed: [TimedPosition] = [],
         exactDegrees: Double = 1e-7) {
        let goldenByTime = Dictionary(grouping: golden, by: \.timeOfDayMillis)
        let comparable = candidate.filter { c in
            goldenByTime[c.timeOfDayMillis] != nil || !goldenUntimed.contains {
                abs($0.lat - c.lat) <= exactDegrees && abs($0.lon - c.lon) <= exactDegrees
            }
        }
        let candidateByTime = Dictionary(grouping: comparable, by: \.timeOfDayMillis)
        goldenEpochs = goldenByTime.count
        candidateFixes = candidateByTime.count
        extra = candidateByTime.keys.filter { goldenByTime[$0] == nil }.count
        for (time, references) in goldenByTime {
            guard let ours = candidateByTime[time] else { continue }
            matched += 1
            if ours.contains(where: { o in references.contains { $0.date == o.date } }) { sameDate += 1 }
            let pairs = ours.flatMap { o in references.map { (o, $0) } }
            if pairs.contains(where: { abs($0.lat - $1.lat) <= exactDegrees && abs($0.lon - $1.lon) <= exactDegrees }) {
                exact += 1
            }
            if pairs.contains(where: { Self.distanceMeters($0, $1) <= 3 }) { within3m += 1 }
        }
    }

    var matchedPercent: Double { percent(matched, of: goldenEpochs) }
    var exactPercent: Double { percent(exact, of: matched) }
    var within3mPercent: Double { percent(within3m, of: matched) }
    var extraPercent: Double { candidateFixes == 0 ? 0 : 100 * Double(extra) / Double(candidateFixes) }

    /// The figures on which `other` does strictly better: a higher matched, 1e-7° or
    /// 3 m share, or a lower extra share. Compared as exact fractions, so one epoch
    /// counts and rounding cannot hide it.
    func figuresBehind(_ other: Self) -> [String] {
        var behind: [String] = []
        if Self.isLess(matched, goldenEpochs, than: other.matched, other.goldenEpochs) { behind.append("matched") }
        if Self.isLess(exact, matched, than: other.exact, other.matched) { behind.append("1e-7°") }
        if Self.isLess(within3m, matched, than: other.within3m, other.matched) { behind.append("3 m") }
        if Self.isLess(other.extra, other.candidateFixes, than: extra, candidateFixes, emptyIs: 0) { behind.append("extra") }
        return behind
    }

    /// a/b < c/d, with an empty whole counting as `emptyIs` (100% for shares, 0 for extra).
    private static func isLess(_ a: Int, _ b: Int, than c: Int, _ d: Int, emptyIs: Int = 1) -> Bool {
        let (a, b) = b == 0 ? (emptyIs, 1) : (a, b)
        let (c, d) = d == 0 ? (emptyIs, 1) : (c, d)
        return a * d < c * b
    }

    private func percent(_ part: Int, of whole: Int) -> Double {
        whole == 0 ? 100 : 100 * Double(part) / Double(whole)
    }

    static func + (a: Self, b: Self) -> Self {
        var sum = a
        sum.goldenEpochs += b.goldenEpochs
        sum.matched += b.matched
        sum.exact += b.exact
        sum.within3m += b.within3m
        sum.candidateFixes += b.candidateFixes
        sum.extra += b.extra
        sum.sameDate += b.sameDate
        return sum
    }

    private init() {}
    static let zero = EpochComparison()

    /// Haversine distance on a 6371 km sphere: plenty for a 3 m threshold.
    static func distanceMeters(_ a: TimedPosition, _ b: TimedPosition) -> Double {
        let toRadians = Double.pi / 180
        let dLat = (b.lat - a.lat) * toRadians
        let dLon = (b.lon - a.lon) * toRadians
        let h = sin(dLat / 2) * sin(dLat / 2)
            + cos(a.lat * toRadians) * cos(b.lat * toRadians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_000 * asin(min(1, h.squareRoot()))
    }
}
