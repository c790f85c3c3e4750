import Foundation
import Glibc
import LocusGeo
import XCTest
@testable import LocusProvider

/// The OpenCellID-layout import: rows, filters, bad rows, and a 2 GB line from a generator.
final class CellImporterTests: XCTestCase {
    /// A reader over fixed bytes, handing them out `piece` bytes at a time.
    func reader(_ text: String, piece: Int = 1 << 20) -> (UnsafeMutableRawBufferPointer) throws(BeaconDatabaseError) -> Int {
        let bytes = Array(text.utf8)
        var offset = 0
        return { buffer throws(BeaconDatabaseError) in
            let count = min(piece, buffer.count, bytes.count - offset)
            bytes[offset..<offset + count].withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: count) }
            offset += count
            return count
        }
    }

    func testTheFixtureImportsEveryRowUnderItsRadio() throws {
        let database = try BeaconDatabase(path: ":memory:")
        let report = try CellImporter().run(into: database, now: 1, read: reader(try NetworkFixtures.text("opencellid-sample.csv")))
        XCTAssertEqual(report, CellImporter.Report(rows: 7, imported: 7))
        let gsm = try XCTUnwrap(try database.cell(CellIdentity(radio: .gsm, mcc: 262, mnc: 1, area: 21004, cell: 4437)))
        XCTAssertEqual(gsm.position.lat, 52.520008, accuracy: 1e-9)
        XCTAssertEqual(gsm.position.lon, 13.405023, accuracy: 1e-9)
        XCTAssertEqual(gsm.radius, 1_500)
        XCTAssertEqual(gsm.samples, 23)
        XCTAssertEqual(gsm.updated, 1_613_474_830)
        XCTAssertNotNil(try database.cell(CellIdentity(radio: .nr, mcc: 262, mnc: 1, area: 5530, cell: 1_112_358)))
        XCTAssertNotNil(try database.cell(CellIdentity(radio: .cdma, mcc: 310, mnc: 4, area: 22, cell: 3301)))
    }

    func testMCCFilterAndPiecesOfAnySize() throws {
        let text = try NetworkFixtures.text("opencellid-sample.csv")
        for piece in [1, 7, 64, 1 << 20] {
            let database = try BeaconDatabase(path: ":memory:")
            let report = try CellImporter(mccFilter: [262]).run(into: database, now: 1, read: reader(text, piece: piece))
            XCTAssertEqual(report.imported, 3, "piece \(piece)")
            XCTAssertEqual(report.filtered, 4)
            XCTAssertEqual(try database.counts().cells, 3)
        }
    }

    func testBadRowsAreCountedWithLineNumbersAndTheRestImports() throws {
        let text = """
            radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal
            GSM,262,1,21004,4437,0,13.405023,52.520008,1500,23,1,1459338453,1613474830,0
            WIMAX,262,1,1,1,0,13.4,52.5,100,1,1,1,1,0
            LTE,262,2,41394,27409348,133,NaN,52.516275,900,51,1,1,1,0
            LTE,262,2,41394,27409349,133,13.377704,95.0,900,51,1,1,1,0
            LTE,262,2,41394
            UMTS,abc,15,3422,41133505,,-0.127758,51.507351,1000,7,1,1,1,0\r
            LTE,262,2,41394,27409350,133,13.377704,52.516275,900,51,1,1,1,0\r

            LTE,262,2,41394,27409351,133,13.3777,52.5162,-5,51,1,1,1,0
            NR,262,1,5530,1112358,,11.581981,48.135125,300,2,1,1650000000,1690000000,0
            """
        let database = try BeaconDatabase(path: ":memory:")
        let report = try CellImporter().run(into: database, now: 1, read: reader(text))
        XCTAssertEqual(report.rows, 9, "the header and the blank line are not rows")
        XCTAssertEqual(report.imported, 3)
        XCTAssertEqual(report.rejected, 6)
        XCTAssertEqual(report.problems, [
            "line 3: radio 'WIMAX' is not GSM, UMTS, LTE, NR or CDMA",
            "line 4: lon 'NaN' is not a number",
            "line 5: lat 95.0 is outside -90.0…90.0",
            "line 6: missing column cell",
            "line 7: mcc 'abc' is not a whole number",
            "line 10: range -5.0 is outside 0.0…100000.0",
        ])
    }

    /// A 2 GB line (streamed from a generator, never written anywhere) between good rows.
    func testATwoGigabyteLineIsSkippedWithoutBeingBuffered() throws {
        let head = Array("GSM,262,1,21004,4437,0,13.405023,52.520008,1500,23,1,1,1,0\n".utf8)
        let tail = Array("\nLTE,262,2,41394,27409348,133,13.377704,52.516275,900,51,1,1,1,0\n".utf8)
        let longBytes: Int64 = 2 << 30
        var produced: Int64 = 0
        var stage = 0
        let database = try BeaconDatabase(path: ":memory:")
        let before = residentKilobytes()
        let started = Date()
        let report = try CellImporter().run(into: database, now: 1) { buffer throws(BeaconDatabaseError) in
            switch stage {
            case 0:
                stage = 1
                head.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: head.count) }
                return head.count
            case 1:
                let count = Int(min(Int64(buffer.count), longBytes - produced))
                memset(buffer.baseAddress!, 0x41, count)
                produced += Int64(count)
                if produced == longBytes { stage = 2 }
                return count
            case 2:
                stage = 3
                tail.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: tail.count) }
                return tail.count
            default:
                return 0
            }
        }
        XCTAssertEqual(produced, longBytes)
        XCTAssertEqual(report.imported, 2)
        XCTAssertEqual(report.overlong, 1)
        XCTAssertEqual(report.problems, ["line 2: longer than 4096 bytes; skipped"])
        XCTAssertLessThan(residentKilobytes() - before, 64 * 1024, "the line was not kept in memory")
        print(String(format: "2 GB line skipped in %.1f s", Date().timeIntervalSince(started)))
    }

    func testAnOverlongLastLineWithoutNewlineAndATruncatedLastRow() throws {
        let database = try BeaconDatabase(path: ":memory:")
        let overlong = "GSM,262,1,1,1,0,13.4,52.5,100,1,1,1,1,0\n" + String(repeating: "9", count: 10_000)
        XCTAssertEqual(try CellImporter().run(into: database, now: 1, read: reader(overlong, piece: 1000)).overlong, 1)
        let truncated = "GSM,262,1,1,2,0,13.4,52.5,100,1,1,1,1,0\nGSM,262,1,1,3,0,13.4"
        let report = try CellImporter().run(into: database, now: 1, read: reader(truncated))
        XCTAssertEqual(report.imported, 1)
        XCTAssertEqual(report.problems, ["line 2: missing column lat"])
    }

    func testRowNumbersParseExactly() throws {
        let line = Array("LTE,262,02,0041394,27409348,,-13.3777040,5.2516275e1,900.0,51".utf8)
        let row = try line.withUnsafeBufferPointer { try OpenCellIDRow.parse($0) }
        XCTAssertEqual(row.identity, CellIdentity(radio: .lte, mcc: 262, mnc: 2, area: 41394, cell: 27_409_348))
        XCTAssertEqual(row.lon, -13.377704)
        XCTAssertEqual(row.lat, 52.516275)
        XCTAssertEqual(row.range, 900)
        XCTAssertNil(row.updated)
        for bad in ["LTE,262,2,1,1,,1.2.3,5,1,1", "LTE,262,2,1,1,,inf,5,1,1", "LTE,262,2,1,99999999999999999999,,1,5,1,1", "LTE,1000,2,1,1,,1,5,1,1"] {
            XCTAssertThrowsError(try Array(bad.utf8).withUnsafeBufferPointer { try OpenCellIDRow.parse($0) }, bad)
        }
    }

    func residentKilobytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
