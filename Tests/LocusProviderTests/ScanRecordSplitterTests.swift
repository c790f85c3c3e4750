import XCTest
@testable import LocusProvider

final class ScanRecordSplitterTests: XCTestCase {
    func testMarkersSplitRecordsAndCarryTheirTimes() throws {
        let log = try NetworkFixtures.text("iw-scans.log")
        var splitter = ScanRecordSplitter()
        var records = splitter.feed(Array(log.utf8))
        if let last = splitter.flush() { records.append(last) }
        XCTAssertEqual(records.map(\.time), [1_700_000_000, 1_700_000_010])
        XCTAssertEqual(try records.map { try ScanParser.parse($0.text).wifi.count }, [3, 3])
        XCTAssertEqual(try ScanParser.parse(records[1].text).wifi[0].signalDBm, -41)
    }

    func testBytesSplitAnywhereGiveTheSameRecords() throws {
        let log = Array(try NetworkFixtures.text("iw-scans.log").utf8)
        var whole = ScanRecordSplitter()
        var expected = whole.feed(log)
        if let last = whole.flush() { expected.append(last) }
        for piece in [1, 3, 17, 256] {
            var splitter = ScanRecordSplitter()
            var records: [ScanRecordSplitter.Record] = []
            var index = 0
            while index < log.count {
                records += splitter.feed(log[index..<min(log.count, index + piece)])
                index += piece
            }
            if let last = splitter.flush() { records.append(last) }
            XCTAssertEqual(records, expected, "pieces of \(piece) bytes")
        }
    }

    func testWithoutMarkersAFlushEndsARecordAndBlankInputGivesNone() {
        var splitter = ScanRecordSplitter()
        XCTAssertTrue(splitter.feed(Array("\n  \n".utf8)).isEmpty)
        XCTAssertNil(splitter.flush())
        XCTAssertTrue(splitter.feed(Array("AA\\:BB\\:CC\\:DD\\:EE\\:FF:x:2412 MHz:50".utf8)).isEmpty)
        let record = splitter.flush()
        XCTAssertEqual(record?.text, "AA\\:BB\\:CC\\:DD\\:EE\\:FF:x:2412 MHz:50\n")
        XCTAssertNil(record?.time)
        XCTAssertNil(splitter.flush())
    }

    func testAMarkerGluedToACutLineStillStartsTheNextRecord() {
        var splitter = ScanRecordSplitter()
        var records = splitter.feed(Array("# scan 1\nBSS 00:11:22:33:44:55(on wlan0)\n\tsignal: -6# scan 2\nBSS 00:11:22:33:44:66\n".utf8))
        if let last = splitter.flush() { records.append(last) }
        XCTAssertEqual(records.map(\.time), [1, 2])
        XCTAssertEqual(records[0].text, "BSS 00:11:22:33:44:55(on wlan0)\n\tsignal: -6\n")
        XCTAssertEqual(records[1].text, "BSS 00:11:22:33:44:66\n")
    }

    func testAnOverlongLineMarksTheRecordOversizeWithoutBufferingIt() {
        var splitter = ScanRecordSplitter()
        splitter.maximumLineBytes = 1000
        _ = splitter.feed(Array("# scan 5\nBSS 00:11:22:33:44:55(on wlan0)\n".utf8))
        _ = splitter.feed([UInt8](repeating: 0x41, count: 200_000))
        let records = splitter.feed(Array("\n# scan 6\nBSS 00:11:22:33:44:66(on wlan0)\n".utf8))
        XCTAssertEqual(records.count, 1)
        XCTAssertTrue(records[0].oversize)
        XCTAssertEqual(records[0].time, 5)
        let next = splitter.flush()
        XCTAssertEqual(next?.oversize, false)
        XCTAssertEqual(next?.time, 6)
    }
}
