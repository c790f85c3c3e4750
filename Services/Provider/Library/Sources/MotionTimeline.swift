import Foundation
public import LocusProtocol
public import LocusService

/// An activity timeline for the `motion` plugin: JSON lines such as
/// `{"t": 30, "activity": "automotive", "confidence": "high"}`. `t` below 10⁹ is seconds from
/// the start of the run, otherwise Unix time; `confidence` defaults to `high`. Blank lines and
/// lines starting with `#` are skipped. Entries must not go back in time.
public struct MotionTimeline: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var t: Double
        public var activity: MotionActivity
        public var confidence: MotionConfidence

        public init(t: Double, activity: MotionActivity, confidence: MotionConfidence = .high) {
            self.t = t
            self.activity = activity
            self.confidence = confidence
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// Times below this are offsets from the start of the run.
    public static let absoluteTimeThreshold = 1e9

    /// Parses the text; the error names the line.
    public static func parse(_ text: String) throws(UsageError) -> MotionTimeline {
        var entries: [Entry] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let number = index + 1
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                throw UsageError("motion timeline line \(number): not a JSON object")
            }
            guard let t = (object["t"] as? NSNumber)?.doubleValue, t.isFinite, t >= 0 else {
                throw UsageError("motion timeline line \(number): `t` must be a number ≥ 0")
            }
            guard let word = object["activity"] as? String, let activity = MotionActivity(rawValue: word) else {
                throw UsageError("motion timeline line \(number): `activity` must be one of "
                                 + MotionActivity.allCases.map(\.rawValue).joined(separator: ", "))
            }
            var confidence = MotionConfidence.high
            if let value = object["confidence"] {
                guard let word = value as? String, let parsed = MotionConfidence(rawValue: word) else {
                    throw UsageError("motion timeline line \(number): `confidence` must be low, medium or high")
                }
                confidence = parsed
            }
            if let previous = entries.last, t < previous.t {
                throw UsageError("motion timeline line \(number): time goes back")
            }
            entries.append(Entry(t: t, activity: activity, confidence: confidence))
        }
        guard !entries.isEmpty else { throw UsageError("motion timeline has no entries") }
        return MotionTimeline(entries: entries)
    }

    /// The reports to publish: each entry at its time, repeated every `intervalSeconds` until
    /// the next one (activity sources report periodically), the last one once or until `endOffset`.
    public func reports(start: Double, intervalSeconds: Double, endOffset: Double? = nil) -> [Entry] {
        var out: [Entry] = []
        for (index, entry) in entries.enumerated() {
            let at = entry.t < Self.absoluteTimeThreshold ? start + entry.t : entry.t
            let nextEntry = index + 1 < entries.count ? entries[index + 1] : nil
            let until = nextEntry.map { $0.t < Self.absoluteTimeThreshold ? start + $0.t : $0.t }
                ?? endOffset.map { start + $0 } ?? at
            var time = at
            repeat {
                out.append(Entry(t: time, activity: entry.activity, confidence: entry.confidence))
                time += intervalSeconds
            } while time < until
        }
        return out
    }
}
