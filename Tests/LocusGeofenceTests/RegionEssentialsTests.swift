import LocusGeo
@testable import LocusGeofence
import LocusProtocol
import XCTest

/// The per-fix path's record of a region: what it holds, and that it stays as small as the
/// layout its doc comment promises (each candidate region is a cache miss at fleet scale).
final class RegionEssentialsTests: XCTestCase {
    func testLayoutStaysSmall() {
        XCTAssertEqual(MemoryLayout<CircleDistance>.size, 56)
        XCTAssertLessThanOrEqual(MemoryLayout<RegionEssentials>.stride, 80)
    }

    func testCarriesWhatTheFixPathReads() throws {
        var store = RegionStore(configuration: GeofenceConfiguration())
        let circle = Region(id: "yard", shape: .circle(center: GeoPoint(lon: 121.4737, lat: 31.2304), radius: 200),
                            notifyOnEntry: false, notifyOnExit: true, dwell: 30)
        let listed = Region(id: "gate", shape: .circle(center: GeoPoint(lon: 121.48, lat: 31.23), radius: 50), devices: ["truck-1"])
        let square = Region(id: "lot", shape: .polygon([[GeoPoint(lon: 0, lat: 0), GeoPoint(lon: 0.01, lat: 0),
                                                          GeoPoint(lon: 0.01, lat: 0.01), GeoPoint(lon: 0, lat: 0)]]))
        let yard = try store.add(circle, owner: "acme").monitored
        let gate = try store.add(listed, owner: "acme").monitored
        let lot = try store.add(square, owner: "acme").monitored

        let first = store.essentials(inSlot: yard.slot)
        XCTAssertTrue(first.isOccupied)
        XCTAssertEqual(first.generation, yard.generation)
        XCTAssertEqual(first.circle?.radiusMeters, 200)
        XCTAssertEqual(first.circle?.center, Coordinate(lat: 31.2304, lon: 121.4737))
        XCTAssertTrue(first.watchesEveryDevice)
        XCTAssertFalse(first.notifyOnEntry)
        XCTAssertTrue(first.notifyOnExit)
        XCTAssertEqual(first.dwellSeconds, 30)

        let second = store.essentials(inSlot: gate.slot)
        XCTAssertFalse(second.watchesEveryDevice)
        XCTAssertEqual(second.circle?.radiusMeters, 100, "widened to the minimum radius, as tested")
        XCTAssertNil(second.dwellSeconds)

        XCTAssertNil(store.essentials(inSlot: lot.slot).circle, "polygons are tested on the filed region")

        store.remove(yard.key)
        XCTAssertFalse(store.essentials(inSlot: yard.slot).isOccupied)
        XCTAssertFalse(store.essentials(inSlot: 999).isOccupied)
    }
}

/// A device reads every one of its tracks on every fix: their size is a per-fix cost.
final class RegionTrackLayoutTests: XCTestCase {
    func testTrackFitsOneCacheLine() {
        XCTAssertLessThanOrEqual(MemoryLayout<RegionTrack>.stride, 64)
    }

    func testPackedOptionalsReadBackAndCompare() {
        var track = RegionTrack(generation: 3, state: .inside)
        XCTAssertNil(track.lastFixTime)
        XCTAssertNil(track.crossingTime)
        track.lastFixTime = 1_790_000_000.5
        track.lastSignedDistanceMeters = -12.25
        track.crossingTime = 1_790_000_000.25
        XCTAssertEqual(track.lastFixTime, 1_790_000_000.5)
        XCTAssertEqual(track.lastSignedDistanceMeters, -12.25)
        XCTAssertEqual(track.crossingTime, 1_790_000_000.25)
        track.crossingTime = nil
        XCTAssertNil(track.crossingTime)
        var same = RegionTrack(generation: 3, state: .inside)
        same.lastFixTime = 1_790_000_000.5
        same.lastSignedDistanceMeters = -12.25
        XCTAssertEqual(track, same, "two empty fields compare equal although NaN stands for them")
        same.lastSignedDistanceMeters = -12.5
        XCTAssertNotEqual(track, same)
        var dwell = DwellTimer()
        XCTAssertNil(dwell.enteredAt)
        dwell.start(at: 10)
        XCTAssertEqual(dwell.enteredAt, 10)
        XCTAssertEqual(DwellTimer(), DwellTimer(enteredAt: nil, fired: false))
    }
}
