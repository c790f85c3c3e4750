import LocusService
import LocusProtocol
import LocusProvider
import XCTest

/// The provider's `motion` plugin: timeline parsing, repetition and the seeded simulation.
final class MotionPluginTests: XCTestCase {
    func testTimelineParsesAndRepeatsUntilTheNextEntry() throws {
        let text = """
            # comment
            {"t": 0, "activity": "walking"}

            {"t": 2.5, "activity": "automotive", "confidence": "medium"}
            """
        let timeline = try MotionTimeline.parse(text)
        XCTAssertEqual(timeline.entries, [MotionTimeline.Entry(t: 0, activity: .walking),
                                          MotionTimeline.Entry(t: 2.5, activity: .automotive, confidence: .medium)])
        let reports = timeline.reports(start: 100, intervalSeconds: 1, endOffset: 4)
        XCTAssertEqual(reports.map(\.t), [100, 101, 102, 102.5, 103.5])
        XCTAssertEqual(reports.map(\.activity), [.walking, .walking, .walking, .automotive, .automotive])
    }

    func testTimelineRejectsBadLinesWithTheirNumber() {
        let cases = [
            "{\"t\": 0, \"activity\": \"flying\"}": "line 1",
            "{\"t\": 0, \"activity\": \"walking\"}\n{\"t\": -1, \"activity\": \"walking\"}": "line 2",
            "{\"t\": 5, \"activity\": \"walking\"}\n{\"t\": 1, \"activity\": \"walking\"}": "time goes back",
            "not json": "not a JSON object",
            "{\"t\": 0, \"activity\": \"walking\", \"confidence\": \"sure\"}": "confidence",
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try MotionTimeline.parse(text), text) { error in
                XCTAssertTrue((error as? UsageError)?.message.contains(expected) ?? false, "\(error)")
            }
        }
    }

    func testSimulationIsSeededAndPlausible() {
        let a = MotionSimulation(seed: 5, durationSeconds: 3600).timeline()
        let b = MotionSimulation(seed: 5, durationSeconds: 3600).timeline()
        let c = MotionSimulation(seed: 6, durationSeconds: 3600).timeline()
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        XCTAssertGreaterThan(a.entries.count, 10)
        for (from, to) in zip(a.entries, a.entries.dropFirst()) {
            XCTAssertTrue((20...180).contains(to.t - from.t))
            if from.activity == .automotive { XCTAssertNotEqual(to.activity, .running, "no running straight out of a car") }
        }
    }
}
