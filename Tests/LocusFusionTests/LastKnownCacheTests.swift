import LocusService
import LocusFusion
import LocusProtocol
import XCTest

/// The last known location survives a restart and is republished with its age.
final class LastKnownCacheTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("locus-state-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testRestartRepublishesWithSourceCacheAndAge() throws {
        var first = FusionHarness(store: try LastKnownStore(directory: directory))
        for step in 0..<10 { first.fix("truck/7", lat: 37.4 + Double(step) * 1e-5, lon: -122.1, t: testEpoch + Double(step)) }
        _ = first.logic.finish(now: testEpoch + 10)
        let lastFused = try XCTUnwrap(first.locations(on: "location.fused.truck/7").last)

        // A new process: the first call that knows the time republishes.
        var second = FusionHarness(store: try LastKnownStore(directory: directory))
        let out = second.logic.tick(now: testEpoch + 70)
        let cached = out.compactMap { out -> Location? in
            guard out.topic == "location.fused.truck/7", case .location(let location) = out.body else { return nil }
            return location
        }
        XCTAssertEqual(cached.count, 1)
        XCTAssertEqual(cached[0].source, "cache")
        XCTAssertEqual(cached[0].mode, "cache")
        XCTAssertEqual(cached[0].lat, lastFused.lat, accuracy: 1e-9)
        XCTAssertEqual(cached[0].age ?? -1, 61, accuracy: 1e-6)
        XCTAssertEqual(out.first { $0.topic == "location.fused.truck/7" }?.t, testEpoch + 9)
        // Only once.
        XCTAssertTrue(second.logic.tick(now: testEpoch + 71).isEmpty)
    }

    func testExpiredEntryIsNotRepublished() throws {
        var first = FusionHarness(store: try LastKnownStore(directory: directory))
        first.fix("a", lat: 37.4, lon: -122.1, t: testEpoch)
        _ = first.logic.finish(now: testEpoch)
        var configuration = FusionConfiguration()
        configuration.cacheValiditySeconds = 600
        var second = FusionHarness(configuration: configuration, store: try LastKnownStore(directory: directory))
        XCTAssertTrue(second.logic.tick(now: testEpoch + 601).isEmpty)
        XCTAssertEqual(second.logic.healthCounters["cacheExpired"], 1)
    }

    func testWritesAreAtomicAndDamagedFilesSkipped() throws {
        let store = try LastKnownStore(directory: directory)
        try store.save(.init(device: "a", lat: 1, lon: 2, hacc: 3, t: testEpoch))
        try store.save(.init(device: "a", lat: 4, lon: 5, hacc: 6, t: testEpoch + 1))
        try Data("{\"device\":".utf8).write(to: directory.appendingPathComponent("broken.json"))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertEqual(names, ["a.json", "broken.json"], "no temporary files are left behind")
        let loaded = store.loadAll()
        XCTAssertEqual(loaded.entries, [.init(device: "a", lat: 4, lon: 5, hacc: 6, t: testEpoch + 1)])
        XCTAssertEqual(loaded.damaged, ["broken.json"])
    }

    func testFileNamesCannotEscapeTheDirectory() throws {
        let store = try LastKnownStore(directory: directory)
        XCTAssertEqual(store.fileURL(for: "../etc/passwd").lastPathComponent, "%2E%2E%2Fetc%2Fpasswd.json")
        XCTAssertEqual(store.fileURL(for: "../x").deletingLastPathComponent().standardizedFileURL.path,
                       directory.standardizedFileURL.path)
    }
}
