import Foundation
import LocusBroker
import XCTest

final class ReplayRingLogTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "locus-ring-log-\(UUID().uuidString.prefix(8))"
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func entry(_ index: Int, at time: Double) -> ReplayRing.Entry {
        ReplayRing.Entry(receivedAt: time, topic: Array("region.event.o\(index % 3)".utf8), body: Array("{\"n\":\(index)}".utf8))
    }

    func testAppendedRecordsReloadInOrderAfterTheWriterIsGone() throws {
        let written = (0..<50).map { entry($0, at: 1_000 + Double($0) / 4) }
        do {
            let log = try ReplayRingLog(directory: directory)
            XCTAssertFalse(log.exists)
            log.rewrite([])
            for (index, item) in written.enumerated() {
                log.append(item)
                if index % 7 == 0 { log.flush() }
            }
            log.flush()
            XCTAssertEqual(log.records, 50)
        }
        let reopened = try ReplayRingLog(directory: directory)
        XCTAssertTrue(reopened.exists)
        XCTAssertEqual(reopened.load(), written)
    }

    func testATornLastRecordIsIgnored() throws {
        let log = try ReplayRingLog(directory: directory)
        log.rewrite([entry(1, at: 5), entry(2, at: 6)])
        log.append(entry(3, at: 7))
        log.flush()
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int)
        XCTAssertEqual(truncate(log.path, off_t(size - 3)), 0)
        XCTAssertEqual(log.load(), [entry(1, at: 5), entry(2, at: 6)])
    }

    func testCompactionRewritesTheFileFromTheRingAndKeepsAppending() throws {
        var ring = ReplayRing(capacity: 10)
        let log = try ReplayRingLog(directory: directory, compactAfter: 5)
        log.rewrite([])
        var compactedAt: [Int] = []
        for index in 0..<40 {
            ring.insert(entry(index, at: Double(index)))
            log.append(try XCTUnwrap(ring.newest))
            log.flush()
            if log.needsCompaction(ringCount: ring.count) {
                log.rewrite(ring.entries)
                compactedAt.append(index)
            }
            XCTAssertLessThanOrEqual(log.records, ring.capacity + 5)
            XCTAssertEqual(Array(log.load().suffix(ring.count)), ring.entries, "after \(index)")
        }
        XCTAssertEqual(compactedAt, [15, 21, 27, 33, 39])
        XCTAssertEqual(log.load(), ring.entries, "right after a compaction the file is the ring")
    }
}
