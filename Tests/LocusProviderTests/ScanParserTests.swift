import XCTest
@testable import LocusProvider

/// Each tool's output format, read from fixtures; then the ways output goes wrong.
final class ScanParserTests: XCTestCase {
    func testIWScanReadsEveryAccessPointWithItsFields() throws {
        let scan = try ScanParser.parse(try NetworkFixtures.text("iw-scan.txt"))
        XCTAssertEqual(scan.format, .iw)
        XCTAssertEqual(scan.wifi.map(\.bssid.description),
                       ["3c:a6:2f:1b:22:10", "44:4e:6d:80:5c:c1", "00:1f:3f:aa:01:02", "8c:19:b5:d2:40:7e", "da:a1:19:6b:3e:05", "e0:28:6d:1a:9f:33"])
        let first = scan.wifi[0]
        XCTAssertEqual(first.ssid, "FRITZ!Box 7590 XY")
        XCTAssertEqual(first.frequencyMHz, 5180)
        XCTAssertEqual(first.signalDBm, -52)
        XCTAssertEqual(first.ageSeconds, 0, "the 'ms ago' line, not the boottime one")
        XCTAssertEqual(scan.wifi[1].ssid, "Café am Markt", "\\xNN escapes decode to UTF-8")
        XCTAssertEqual(scan.wifi[1].ageSeconds ?? -1, 0.432, accuracy: 1e-9)
        XCTAssertEqual(scan.wifi[2].ssid, "\0\0\0\0\0\0", "a hidden network's zero bytes")
        XCTAssertEqual(scan.wifi[5].ssid, " Leerzeichen ")
        XCTAssertEqual(scan.wifi[5].ageSeconds ?? -1, 31.636, accuracy: 1e-9)
        XCTAssertEqual(scan.wifi.map(\.optedOut), [false, false, false, true, true, false], "_nomap and a locally administered address")
        XCTAssertEqual(scan.skippedEntries, 0)
    }

    func testOlderIWScanDumpWithSpacedInterfaceQualityAndNegativeHundredths() throws {
        let scan = try ScanParser.parse(try NetworkFixtures.text("iw-scan-dump-old.txt"))
        XCTAssertEqual(scan.wifi.count, 3)
        XCTAssertEqual(scan.wifi[0].frequencyMHz, 2412)
        XCTAssertEqual(scan.wifi[0].signalDBm, -39)
        XCTAssertEqual(scan.wifi[1].signalDBm, -45.5, "iw prints −4550 mBm as -45.-50")
        XCTAssertEqual(scan.wifi[2].signalDBm ?? 0, -58, accuracy: 1e-9, "70/100 read like NetworkManager's percentage")
    }

    func testNMCLITerseListUnescapesColonsAndBackslashes() throws {
        let scan = try ScanParser.parse(try NetworkFixtures.text("nmcli-wifi-list.txt"))
        XCTAssertEqual(scan.format, .nmcli)
        XCTAssertEqual(scan.wifi.count, 6)
        XCTAssertEqual(scan.wifi[0].bssid.description, "3c:a6:2f:1b:22:10")
        XCTAssertEqual(scan.wifi[0].frequencyMHz, 5180)
        XCTAssertEqual(scan.wifi[0].signalDBm ?? 0, -52, accuracy: 1e-9, "80 % is −52 dBm on NetworkManager's scale")
        XCTAssertNil(scan.wifi[2].ssid, "hidden network: empty SSID")
        XCTAssertEqual(scan.wifi[5].ssid, "Büro:Gast\\2")
        XCTAssertEqual(scan.wifi.map(\.optedOut), [false, false, false, true, true, false])
    }

    func testMMCLIHumanOutputOfCurrentModemManagerIsHex() throws {
        let scan = try ScanParser.parse(try NetworkFixtures.text("mmcli-location-human.txt"))
        XCTAssertEqual(scan.format, .mmcli)
        XCTAssertEqual(scan.cells, [CellObservation(mcc: 262, mnc: 2, lac: nil, tac: 0xA1B2, cell: 0x01A2_B3C4)])
        XCTAssertEqual(scan.cells[0].candidates.map(\.radio), [.lte, .nr])
    }

    func testMMCLIOlderHumanOutputIsQuotedDecimal() throws {
        let scan = try ScanParser.parse(try NetworkFixtures.text("mmcli-location-old.txt"))
        XCTAssertEqual(scan.cells, [CellObservation(mcc: 262, mnc: 1, lac: 21004, tac: nil, cell: 4437)])
        XCTAssertEqual(scan.cells[0].candidates.map(\.radio), [.gsm, .umts])
    }

    func testMMCLIKeyValueAndJSON() throws {
        let keyValue = try ScanParser.parse(try NetworkFixtures.text("mmcli-location-keyvalue.txt"))
        XCTAssertEqual(keyValue.cells, [CellObservation(mcc: 234, mnc: 15, lac: 0x0D5E, tac: nil, cell: 0x0273_A5C1)])
        XCTAssertEqual(keyValue.cells[0].candidates.map(\.radio), [.umts, .gsm], "a 28-bit cell id is UMTS first")
        let json = try ScanParser.parse(try NetworkFixtures.text("mmcli-location.json"))
        XCTAssertEqual(json.cells, [CellObservation(mcc: 310, mnc: 260, lac: nil, tac: 0x3E81, cell: 0x0A6B_3C01)])
    }

    func testUnregisteredModemSaysHowToEnableLocation() throws {
        XCTAssertThrowsError(try ScanParser.parse(try NetworkFixtures.text("mmcli-location-unregistered.txt"))) { error in
            let failure = error as? ScanParseError
            XCTAssertEqual(failure?.kind, .noEntries)
            XCTAssertTrue(failure?.message.contains("--location-enable-3gpp") ?? false, failure?.message ?? "")
        }
    }

    func testToolErrorsUnknownOutputAndEmptyOutputAreRefusedWithTheirReason() {
        let cases: [(String, ScanParseError.Kind, String)] = [
            ("", .empty, "empty"),
            ("\n  \n", .empty, "empty"),
            ("command failed: Operation not permitted (-1)\n", .toolError, "Operation not permitted"),
            ("Error: Wi-Fi is disabled.\n", .toolError, "Wi-Fi is disabled"),
            ("error: couldn't find modem\n", .toolError, "couldn't find modem"),
            ("wlan0     Interface doesn't support scanning.\n", .unknownFormat, "Interface doesn't support scanning"),
            ("<html><body>hello</body></html>\n", .unknownFormat, "first line '<html>"),
            ("BSS zz:zz:zz:zz:zz:zz(on wlan0)\n\tsignal: -50.00 dBm\n", .noEntries, "1 unreadable"),
        ]
        for (text, kind, words) in cases {
            XCTAssertThrowsError(try ScanParser.parse(text), text) { error in
                let failure = error as? ScanParseError
                XCTAssertEqual(failure?.kind, kind, text)
                XCTAssertTrue(failure?.message.contains(words) ?? false, "\(failure?.message ?? "") should say \(words)")
            }
        }
    }

    func testEveryTruncationOfAnIWScanParsesOrFailsWithAReason() throws {
        let text = try NetworkFixtures.text("iw-scan.txt")
        let full = try ScanParser.parse(text)
        var cutInsideAnEntry = 0
        for length in stride(from: 0, through: text.utf8.count, by: 7) {
            let prefix = String(decoding: Array(text.utf8.prefix(length)), as: UTF8.self)
            do {
                let scan = try ScanParser.parse(prefix)
                XCTAssertLessThanOrEqual(scan.wifi.count, full.wifi.count)
                // Whatever a truncated scan keeps is a prefix of the full scan's access points.
                XCTAssertEqual(scan.wifi.map(\.bssid), Array(full.wifi.map(\.bssid).prefix(scan.wifi.count)))
                for entry in scan.wifi {
                    if let signal = entry.signalDBm { XCTAssertTrue(signal.isFinite && signal < 0, "\(signal)") }
                }
                if scan.skippedEntries > 0 { cutInsideAnEntry += 1 }
            } catch {
                XCTAssertFalse(error.message.isEmpty)
                XCTAssertTrue([.empty, .noEntries, .unknownFormat].contains(error.kind), "\(error.kind) at \(length)")
            }
        }
        XCTAssertGreaterThan(cutInsideAnEntry, 0, "some cuts fall inside a BSS line and are counted")
    }

    func testNMCLILinesOfTheWrongShapeAreSkippedAndCounted() throws {
        let text = "3C\\:A6\\:2F\\:1B\\:22\\:10:Net:2437 MHz:80\nAA\\:BB\\:CC\nnot:a:line:at all\n"
        let scan = try ScanParser.parse(text)
        XCTAssertEqual(scan.wifi.count, 1)
        XCTAssertEqual(scan.skippedEntries, 2)
    }

    func testOversizeOutputIsRefusedBeforeParsing() {
        let huge = String(repeating: "BSS 00:11:22:33:44:55(on wlan0)\n", count: ScanParser.maximumBytes / 32 + 10)
        XCTAssertThrowsError(try ScanParser.parse(huge)) { XCTAssertEqual(($0 as? ScanParseError)?.kind, .tooLarge) }
    }

    func testMACAddressForms() {
        XCTAssertEqual(MACAddress("00-1A-2B-3C-4D-5E")?.description, "00:1a:2b:3c:4d:5e")
        XCTAssertNil(MACAddress("00:1a:2b:3c:4d"))
        XCTAssertNil(MACAddress("00:1a:2b:3c:4d:5g"))
        XCTAssertNil(MACAddress("00:1a:2b:3c:4d:5e:"))
        XCTAssertNil(MACAddress("001a:2b:3c:4d:5e:f"))
        XCTAssertTrue(MACAddress("02:00:00:00:00:01")!.isLocallyAdministered)
        XCTAssertFalse(MACAddress("00:00:00:00:00:01")!.isLocallyAdministered)
        XCTAssertTrue(MACAddress("01:00:5e:00:00:01")!.isMulticast)
    }
}
