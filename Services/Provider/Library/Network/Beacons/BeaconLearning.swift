import Foundation
public import LocusGeo

/// How one good fix teaches the database about a beacon heard at that moment. Pure: the
/// caller reads the record, asks for the new one, and writes it back.
///
/// - A new beacon starts at the fix, with a coverage radius guessed from its signal.
/// - A known one moves toward the fix by the fix's share of the evidence; the weight of a
///   sighting is 1 / (d² + hacc²), d the distance its signal suggests, so near sightings
///   count most and the record converges on where the beacon is loudest. Its radius
///   follows the root mean square of the sightings' distances (× √2: the radius of a disk
///   with that spread).
/// - A sighting farther than the move gate (3 × radius, at least the kind's minimum) means
///   the beacon moved: the record starts again at the new place. The second time it is
///   marked mobile and never used or learned again.
public struct BeaconLearning: Sendable {
    public enum Outcome: String, Sendable {
        case created, updated, moved, becameMobile, ignoredMobile
    }

    public var kind: BeaconKind
    public var pathLoss: PathLossModel
    /// Sightings beyond this count are averaged as if there were this many, so a record
    /// keeps following slow changes (a new building, a re-planned cell).
    public var memory: Int = 200

    public init(kind: BeaconKind, pathLoss: PathLossModel = .wifiTypical) {
        self.kind = kind
        self.pathLoss = pathLoss
    }

    /// The record after a sighting at `position` (a fix with 68 % radius `hacc`) with `signalDBm`.
    public func update(_ record: BeaconRecord?, seenAt position: Coordinate, hacc: Double, signalDBm: Double?,
                       t: Double) -> (record: BeaconRecord, outcome: Outcome) {
        let distance = signalDistance(signalDBm, record: record)
        let weight = 1 / (distance * distance + hacc * hacc)
        guard var record else {
            return (fresh(at: position, distance: distance, weight: weight, moves: 0, t: t), .created)
        }
        if record.isMobile { return (record, .ignoredMobile) }
        let plane = LocalTangentPlane(origin: record.position)
        let offset = plane.project(position)
        let apart = hypot(offset.east, offset.north)
        let gate = min(max(kind.moveGateMinimumMeters, 3 * record.radius), kind.moveGateMaximumMeters)
        if apart > gate {
            let moves = record.moves + 1
            if moves >= 2 {
                record.moves = moves
                record.updated = t
                return (record, .becameMobile)
            }
            return (fresh(at: position, distance: distance, weight: weight, moves: moves, t: t), .moved)
        }
        let share = weight / (record.weight + weight)
        record.position = plane.unproject(east: offset.east * share, north: offset.north * share)
        let count = Double(min(record.samples + 1, memory))
        let spread = record.radius * record.radius / 2
        let newSpread = spread + (apart * apart - spread) / count
        record.radius = clampRadius((2 * newSpread).squareRoot())
        record.weight = (record.samples >= memory ? record.weight * (1 - 1 / Double(memory)) : record.weight) + weight
        record.samples += 1
        record.updated = t
        return (record, .updated)
    }

    /// The distance a signal suggests, within what the record's coverage allows.
    func signalDistance(_ signalDBm: Double?, record: BeaconRecord?) -> Double {
        let coverage = record?.radius ?? kind.defaultRadiusMeters
        guard let signalDBm, signalDBm.isFinite, kind == .wifi else { return coverage / 2 }
        return min(pathLoss.distance(forSignal: signalDBm), kind.maximumRadiusMeters)
    }

    private func fresh(at position: Coordinate, distance: Double, weight: Double, moves: Int, t: Double) -> BeaconRecord {
        let radius = kind == .wifi ? clampRadius(max(distance, kind.defaultRadiusMeters / 2)) : kind.defaultRadiusMeters
        return BeaconRecord(position: position, radius: radius, weight: weight, samples: 1, moves: moves, updated: t)
    }

    private func clampRadius(_ radius: Double) -> Double {
        min(max(radius, kind.minimumRadiusMeters), kind.maximumRadiusMeters)
    }
}
