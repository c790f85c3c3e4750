import LocusGeo
import LocusProtocol
import LocusService
import XCTest
@testable import LocusMotion

/// A tick looks only at the devices its schedule says are due; it must publish exactly what
/// looking at every device publishes, whatever the devices do.
final class TickScheduleTests: XCTestCase {
    func testScheduledTicksPublishWhatScanningEveryDevicePublishes() {
        for seed in UInt64(1)...6 {
            var random = SeededGenerator(seed: seed)
            var configuration = MotionConfiguration()
            configuration.pauseAfterSeconds = 40
            configuration.deadReckoningMaximumSeconds = 30
            configuration.cacheValiditySeconds = 90
            var scheduled = MotionScenario(configuration: configuration)
            var scanning = MotionScenario(configuration: configuration)
            scanning.logic.tickScansEveryDevice = true
            let base = Coordinate(lat: 31.2, lon: 121.4)
            let devices = (0..<40).map { "car-\($0)" }
            // Each device drives, stops reporting for a while now and then, changes activity,
            // and some run late (their fixes arrive seconds after their time).
            var silentUntil = [Double](repeating: 0, count: devices.count)
            let lag = devices.indices.map { $0 % 4 == 0 ? Double($0 % 7) : 0 }
            var t = 1_790_000_000.0
            for step in 0..<600 {
                t += 1
                for (index, device) in devices.enumerated() where Double.random(in: 0..<1, using: &random) < 0.6 {
                    if t < silentUntil[index] { continue }
                    if Double.random(in: 0..<1, using: &random) < 0.01 { silentUntil[index] = t + Double.random(in: 5...150, using: &random) }
                    let r = Double.random(in: 0..<1, using: &random)
                    if r < 0.03 {
                        let activity = [MotionActivity.stationary, .walking, .automotive, .unknown][Int.random(in: 0..<4, using: &random)]
                        scheduled.activity(device, activity, t: t, arrival: t + lag[index])
                        scanning.activity(device, activity, t: t, arrival: t + lag[index])
                        continue
                    }
                    let p = Geodesic.destination(from: base, azimuthDegrees: Double(index) * 9, distanceMeters: Double(step) * 12)
                    let hacc = r < 0.1 ? 80.0 : 6.0
                    scheduled.fused(device, p, hacc: hacc, t: t, speed: 12, speedAcc: 0.5, course: Double(index) * 9, arrival: t + lag[index])
                    scanning.fused(device, p, hacc: hacc, t: t, speed: 12, speedAcc: 0.5, course: Double(index) * 9, arrival: t + lag[index])
                }
                if step == 300 {
                    scheduled.output += scheduled.logic.powerSupplyChanged(lowPower: true, now: t)
                    scanning.output += scanning.logic.powerSupplyChanged(lowPower: true, now: t)
                }
                // Runtime ticks between inputs, as on the bus.
                scheduled.tick(at: t + 0.5)
                scanning.tick(at: t + 0.5)
            }
            scheduled.tick(at: t + 500)
            scanning.tick(at: t + 500)
            XCTAssertEqual(scheduled.output, scanning.output, "seed \(seed)")
            XCTAssertGreaterThan(scheduled.fixes(source: "dr").count, 50, "seed \(seed): the stream exercises dead reckoning")
            XCTAssertGreaterThan(scheduled.fixes(source: "cache").count, 5, "seed \(seed): and the cached location")
            XCTAssertFalse(scheduled.errors.filter { $0.code == "unavailable" }.isEmpty, "seed \(seed): and expiry")
        }
    }

    func testTheScheduleGivesDueDevicesInNameOrderOnce() {
        var schedule = TickSchedule()
        schedule.set("b", due: 10)
        schedule.set("a", due: 10)
        schedule.set("c", due: 30)
        schedule.set("d", due: nil)
        XCTAssertEqual(schedule.takeDue(at: 5), [])
        XCTAssertEqual(schedule.takeDue(at: 10), ["a", "b"])
        XCTAssertEqual(schedule.takeDue(at: 20), [], "taken devices wait for their next time")
        schedule.set("c", due: 40)  // later: the queued entry is found early and queued again
        XCTAssertEqual(schedule.takeDue(at: 35), [])
        schedule.set("a", due: 36)  // earlier than nothing queued: queued now
        XCTAssertEqual(schedule.takeDue(at: 41), ["a", "c"])
        schedule.set("c", due: 50)
        schedule.set("c", due: nil)
        XCTAssertEqual(schedule.takeDue(at: 100), [], "a device with nothing due is not given")
    }
}
