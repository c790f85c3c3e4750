import XCTest
@testable import LocusProvider

/// The one rule for NMEA times of day without a date: a jump back by more than half a day is midnight.
final class MidnightRolloverTests: XCTestCase {
    func testAJumpBackOfMoreThanHalfADayIsTheNextDay() {
        var days = MidnightRollover(day: 100)
        XCTAssertEqual(days.follow(millis: 86_399_000), 100)
        XCTAssertEqual(days.follow(millis: 500), 101, "23:59:59 then 00:00:00.5 crossed midnight")
        XCTAssertEqual(days.follow(millis: 43_200_500), 101, "forward within the day stays on it")
    }

    func testAJumpBackOfHalfADayOrLessIsTheSameDay() {
        var days = MidnightRollover(day: 7)
        days.follow(millis: 50_000_000)
        XCTAssertEqual(days.follow(millis: 50_000_000 - 43_200_000), 7, "exactly half a day back is not midnight")
        days.follow(millis: 50_000_000)
        XCTAssertEqual(days.follow(millis: 50_000_000 - 43_200_001), 8)
    }

    func testADateSetsTheDayAndNoDayStaysUnknown() {
        var unknown = MidnightRollover()
        unknown.follow(millis: 86_000_000)
        XCTAssertNil(unknown.follow(millis: 1_000), "midnight without a known day invents none")
        XCTAssertEqual(unknown.follow(millis: 2_000, date: 20_000), 20_000)
        XCTAssertEqual(unknown.follow(millis: 1_000), 20_000, "a second back is a late stamp, not a day")
    }

    func testSecondsReadBackAsTheirMilliseconds() {
        XCTAssertTrue(MidnightRollover.crossesMidnight(fromSeconds: 86_399.999, toSeconds: 0.001))
        XCTAssertFalse(MidnightRollover.crossesMidnight(fromSeconds: 43_200.001, toSeconds: 0.001))
        XCTAssertTrue(MidnightRollover.crossesMidnight(fromSeconds: 43_200.002, toSeconds: 0.001))
        XCTAssertEqual(MidnightRollover.unixTime(day: 2, timeOfDay: 1.5), 172_801.5)
    }
}
