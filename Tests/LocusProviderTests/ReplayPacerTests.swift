import XCTest
@testable import LocusProvider

final class ReplayPacerTests: XCTestCase {
    func testPlainReplayAnchorsAtTheFirstFix() {
        var pacer = ReplayPacer(speed: 10)
        XCTAssertEqual(pacer.delay(forFixTime: 1000, now: 50), 0)
        XCTAssertEqual(pacer.delay(forFixTime: 1020, now: 50), 2, accuracy: 1e-9)
        XCTAssertFalse(pacer.isPast(forFixTime: 1000, now: 500), "only a live replay skips fixes")
    }

    func testLiveReplayWaitsForItsStartAndPacesFromIt() {
        var pacer = ReplayPacer(speed: 10, liveSince: 100)
        XCTAssertFalse(pacer.isPast(forFixTime: 1000, now: 97))
        XCTAssertEqual(pacer.delay(forFixTime: 1000, now: 97), 3, accuracy: 1e-9)
        XCTAssertEqual(pacer.delay(forFixTime: 1050, now: 100), 5, accuracy: 1e-9)
    }

    /// A provider restarted at wall time 130 (route time 300 s at 10×) skips what it missed
    /// and releases the fix that is due now, as a live receiver would.
    func testRestartedLiveReplayContinuesWhereTheRouteIsNow() {
        var pacer = ReplayPacer(speed: 10, liveSince: 100)
        let now = 130.0
        let released = (0..<600).map { 1000 + Double($0) }.filter { !pacer.isPast(forFixTime: $0, now: now) }
        XCTAssertEqual(released.first, 1295, "fixes up to the late tolerance (0.5 s = 5 s of route) are still sent")
        XCTAssertEqual(pacer.delay(forFixTime: 1300, now: now), 0, accuracy: 1e-9)
        XCTAssertEqual(pacer.delay(forFixTime: 1310, now: now), 1, accuracy: 1e-9)
    }

    func testAsFastAsPossibleIgnoresLiveSince() {
        var pacer = ReplayPacer(speed: 10, asFastAsPossible: true, liveSince: 100)
        XCTAssertFalse(pacer.isPast(forFixTime: 1000, now: 1e9))
        XCTAssertEqual(pacer.delay(forFixTime: 1000, now: 0), 0)
    }
}
