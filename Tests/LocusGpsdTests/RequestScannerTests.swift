import XCTest
@testable import LocusGpsd

/// How client bytes become commands: the framing libgps, the Python client and people
/// with `nc` actually use.
final class RequestScannerTests: XCTestCase {
    private func scan(_ chunks: String..., maximumBytes: Int = 4096) -> [GpsdRequest] {
        var scanner = RequestScanner(maximumBytes: maximumBytes)
        var requests: [GpsdRequest] = []
        for chunk in chunks {
            XCTAssertTrue(scanner.append(chunk.utf8))
            requests += scanner.takeRequests()
        }
        return requests
    }

    func testLibgpsWatchNeedsNoLineEnd() {
        // libgps's gps_stream() sends exactly this, with no newline.
        let requests = scan(#"?WATCH={"enable":true,"json":true};"#)
        XCTAssertEqual(requests, [.watch(FlatJSONObject(members: ["enable": .bool(true), "json": .bool(true)]))])
    }

    func testPythonClientWatchEndsWithNewlineAndNoSemicolon() {
        let requests = scan(#"?WATCH={"enable":true,"json":true}"# + "\n")
        XCTAssertEqual(requests, [.watch(FlatJSONObject(members: ["enable": .bool(true), "json": .bool(true)]))])
    }

    func testCommandSplitAcrossReadsWaitsForTheRest() {
        var scanner = RequestScanner()
        _ = scanner.append(#"?WATCH={"enable":tr"#.utf8)
        XCTAssertEqual(scanner.takeRequests(), [])
        XCTAssertGreaterThan(scanner.pendingBytes, 0)
        _ = scanner.append(#"ue};?POLL"#.utf8)
        XCTAssertEqual(scanner.takeRequests(), [.watch(FlatJSONObject(members: ["enable": .bool(true)]))])
        _ = scanner.append(";".utf8)
        XCTAssertEqual(scanner.takeRequests(), [.poll])
        XCTAssertEqual(scanner.pendingBytes, 0)
    }

    func testSeveralCommandsOnOneLine() {
        XCTAssertEqual(scan("?VERSION;?DEVICES; ?POLL;\r\n?WATCH;?DEVICE;\n"), [.version, .devices, .poll, .watch(nil), .device(nil)])
    }

    func testALineNotStartingWithAQuestionMarkIsIgnoredAsGpsdIgnoresIt() {
        XCTAssertEqual(scan("hello ?VERSION;\n", "?DEVICES;"), [.devices])
        XCTAssertEqual(scan(";?VERSION;\n"), [])
        // An ignored line waits for its end before anything after it counts.
        XCTAssertEqual(scan("garbage without end", "?VERSION;", "\n?POLL;"), [.poll])
    }

    func testUnknownCommandsQuoteTheRestOfTheLineWithItsLineEnd() {
        XCTAssertEqual(scan("?FOO;\n?VERSION;"), [.unrecognized("?FOO;\n"), .version])
        // gpsd adds the line end a request lacks before quoting it.
        XCTAssertEqual(scan("?FOO;"), [.unrecognized("?FOO;\n")])
        // ?VERSION needs its semicolon.
        XCTAssertEqual(scan("?VERSION\r\n"), [.unrecognized("?VERSION\r\n")])
        XCTAssertEqual(scan("?VERSION={}\n"), [.unrecognized("?VERSION={}\n")])
        // A stray character after a command is a request of its own.
        XCTAssertEqual(scan("?VERSION;;?DEVICES;\n"), [.version, .unrecognized(";?DEVICES;\n")])
    }

    func testMalformedArgumentsAreReportedNotGuessed() {
        let requests = scan(#"?WATCH={"enable":true,}"# + "\n", #"?DEVICE={"path":{"x":1}}"# + "\n", #"?WATCH={"enable":tru"# + "\n")
        XCTAssertEqual(requests.count, 3)
        for (request, command) in zip(requests, ["WATCH", "DEVICE", "WATCH"]) {
            guard case let .invalidArgument(name, message) = request else { return XCTFail("\(request)") }
            XCTAssertEqual(name, command)
            XCTAssertFalse(message.isEmpty)
        }
    }

    func testArgumentValuesOfEveryKind() {
        let requests = scan(#"?WATCH={"device":"locus://van\"7","raw":2,"timing":false,"remote":null,"x":-1.5e2}"# + "\n")
        XCTAssertEqual(requests, [.watch(FlatJSONObject(members: [
            "device": .string("locus://van\"7"), "raw": .number(2), "timing": .bool(false), "remote": .null, "x": .number(-150),
        ]))])
    }

    func testInputBeyondTheBoundIsRefused() {
        var scanner = RequestScanner(maximumBytes: 64)
        XCTAssertTrue(scanner.append(String(repeating: "x", count: 64).utf8))
        XCTAssertFalse(scanner.append("y".utf8))
    }

    func testCompleteCommandsDoNotCountAgainstTheBound() {
        var scanner = RequestScanner(maximumBytes: 64)
        for _ in 0..<100 {
            XCTAssertTrue(scanner.append("?POLL;?VERSION;\n".utf8))
            XCTAssertEqual(scanner.takeRequests(), [.poll, .version])
        }
    }
}
