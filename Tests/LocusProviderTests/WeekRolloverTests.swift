import LocusProvider
import XCTest

/// GPS week-rollover repair: dates 1024·k weeks back are moved to now, others are left, and
/// only live inputs are repaired unless told otherwise.
final class WeekRolloverTests: XCTestCase {
    private let now = 1_775_000_000.5  // 2026-03-31

    func testDatesOneOrTwoPeriodsBackAreRepairedAndTheFirstRepairIsFlagged() {
        var rollover = WeekRollover(enabled: true)
        let first = rollover.repair(now - WeekRollover.periodSeconds - 0.4, now: now)
        XCTAssertEqual(first.t, now - 0.4, accuracy: 1e-6)
        XCTAssertTrue(first.first)
        XCTAssertEqual(rollover.weeks, 1024)
        let second = rollover.repair(now - WeekRollover.periodSeconds + 0.6, now: now + 1)
        XCTAssertEqual(second.t, now + 0.6, accuracy: 1e-6)
        XCTAssertFalse(second.first)
        var older = WeekRollover(enabled: true)
        XCTAssertEqual(older.repair(now - 2 * WeekRollover.periodSeconds - 3_600, now: now).t, now - 3_600, accuracy: 1e-6)
        XCTAssertEqual(older.weeks, 2048)
        XCTAssertEqual(rollover.repaired, 2)
    }

    func testOtherTimesAreLeftAlone() {
        var rollover = WeekRollover(enabled: true)
        for t in [now, now - 30, now - 400 * 86_400, now - WeekRollover.periodSeconds + 3 * 86_400, now + 3_600] {
            XCTAssertEqual(rollover.repair(t, now: now).t, t)
        }
        XCTAssertNil(rollover.weeks)
        var off = WeekRollover(enabled: false)
        XCTAssertEqual(off.repair(now - WeekRollover.periodSeconds, now: now).t, now - WeekRollover.periodSeconds)
    }

    func testPolicyRepairsLiveInputsByDefaultAndCanBeForced() {
        XCTAssertTrue(WeekRollover.Policy.auto.repairs(live: true))
        XCTAssertFalse(WeekRollover.Policy.auto.repairs(live: false))
        XCTAssertTrue(WeekRollover.Policy.correct.repairs(live: false))
        XCTAssertFalse(WeekRollover.Policy.keep.repairs(live: true))
    }

    func testReportNamesTheWeeksAndBothDates() {
        let text = WeekRollover.describe(weeks: 1024, from: now - WeekRollover.periodSeconds, to: now)
        XCTAssertEqual(text, "receiver dates fixes 1024 weeks in the past (2006-08-15 for 2026-03-31): the GPS week-rollover bug; "
                       + "adding 1024 weeks to its fixes (--rollover keep leaves them)")
    }
}
