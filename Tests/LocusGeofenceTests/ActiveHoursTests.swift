import Foundation
import LocusService
import LocusGeo
import LocusGeofence
import LocusProtocol
import XCTest

/// `activeHours` in a named zone across the start of daylight saving time: Europe/Berlin
/// moves from UTC+1 to UTC+2 at 01:00 UTC on Sunday 29 March 2026, so "08:00" is 07:00 UTC
/// on the Saturday and 06:00 UTC on the Sunday.
final class ActiveHoursTests: XCTestCase {
    private let centre = Coordinate(lat: 52.52, lon: 13.405)
    private var counter = 0

    private func utc(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: 2026, month: 3, day: day, hour: hour, minute: minute))!.timeIntervalSince1970
    }

    private func message(_ body: Body, t: Double) -> Message {
        counter += 1
        return Message(body: body, id: "h\(counter)", t: t, src: "test/hours")
    }

    func testWindowsFollowTheZoneAcrossADaylightSavingChange() throws {
        var configuration = GeofenceConfiguration()
        configuration.defaultAuthorization = .always
        configuration.debounceSeconds = 0
        var logic = try GeofenceLogic(configuration: configuration)
        let hours = ActiveHours(timeZone: "Europe/Berlin", windows: [ActiveWindow(days: ActiveWindow.dayNames, start: "08:00", end: "18:00")])
        let region = Region(id: "office", shape: .circle(center: GeoPoint(lon: centre.lon, lat: centre.lat), radius: 200), activeHours: hours)
        let added = logic.receive(message(.regionAdd(RegionAdd(owner: "firm", region: region)), t: utc(28, 5)), topic: Topic.regionCmd, now: utc(28, 5))
        XCTAssertTrue(added.contains { if case .regionAdded = $0.body { true } else { false } })

        let away = Geodesic.destination(from: centre, azimuthDegrees: 0, distanceMeters: 1_000)
        // Where the device is, by UTC time: in, then out 12:00–13:00 and 20:00–05:00.
        func position(_ t: Double) -> Coordinate {
            if t >= utc(28, 12) && t < utc(28, 13) { return away }
            if t >= utc(28, 20) && t < utc(29, 5) { return away }
            return centre
        }
        var events: [(t: Double, kind: RegionEventKind, cause: RegionEventCause, state: RegionState)] = []
        var t = utc(28, 5)
        while t <= utc(29, 8) {
            let p = position(t)
            let fix = Location(device: "ann", source: "fused", lat: p.lat, lon: p.lon, hacc: 5)
            for out in logic.receive(message(.location(fix), t: t), topic: Topic.locationFused("ann"), now: t) {
                if case .regionEvent(let event) = out.body { events.append((t, event.event, event.cause, event.state)) }
            }
            t += 600
        }
        let summary = events.map { "\($0.kind.rawValue)/\($0.cause.rawValue)/\($0.state.rawValue)@\(Int(($0.t - utc(28, 0)) / 60))min" }
        XCTAssertEqual(summary, [
            "state/activated/inside@\(7 * 60)min",    // Saturday 08:00 CET = 07:00 UTC
            "exit/crossing/outside@\(12 * 60)min",
            "enter/crossing/inside@\(13 * 60)min",
            // 17:00 UTC (18:00 CET) ends the window: leaving at 20:00 and coming back at
            // 05:00 UTC report nothing.
            "state/activated/inside@\(30 * 60)min",   // Sunday 08:00 CEST = 06:00 UTC
        ])
    }

    func testAnUnknownZoneIsRefused() throws {
        var configuration = GeofenceConfiguration()
        configuration.defaultAuthorization = .always
        var logic = try GeofenceLogic(configuration: configuration)
        let hours = ActiveHours(timeZone: "Mars/Olympus", windows: [ActiveWindow(days: ["mon"], start: "08:00", end: "18:00")])
        let region = Region(id: "x", shape: .circle(center: GeoPoint(lon: 0, lat: 0), radius: 200), activeHours: hours)
        let out = logic.receive(message(.regionAdd(RegionAdd(owner: "firm", region: region)), t: 0), topic: Topic.regionCmd, now: 0)
        guard case .regionFailed(let failed)? = out.first?.body else { return XCTFail("expected region.failed, got \(out)") }
        XCTAssertEqual(failed.code, .invalidSchedule)
    }

    func testWindowsPastMidnight() throws {
        let schedule = try ActiveSchedule(ActiveHours(timeZone: "UTC", windows: [ActiveWindow(days: ["fri"], start: "22:00", end: "02:00")]))
        // Friday 27 March 2026 23:00 UTC and Saturday 01:00 belong to the same window; 02:00 does not.
        XCTAssertNotNil(schedule.window(at: utc(27, 23)))
        XCTAssertEqual(schedule.window(at: utc(27, 23)), schedule.window(at: utc(28, 1)))
        XCTAssertNil(schedule.window(at: utc(28, 2)))
        XCTAssertNil(schedule.window(at: utc(28, 23)))
    }
}
