import LocusNet
import XCTest

final class HTTPRequestParserTests: XCTestCase {
    func testParsesAHeadDeliveredInPieces() {
        var parser = HTTPRequestParser()
        XCTAssertEqual(parser.feed(Array("GET /events?x=1 HTTP/1.1\r\nHo".utf8)), .incomplete)
        XCTAssertEqual(parser.feed(Array("st: 127.0.0.1:8470\r\nAccept:  text/event-stream \r\n".utf8)), .incomplete)
        guard case .complete(let head) = parser.feed(Array("\r\n".utf8)) else { return XCTFail("head not complete") }
        XCTAssertEqual(head.method, "GET")
        XCTAssertEqual(head.path, "/events")
        XCTAssertEqual(head.headers["host"], "127.0.0.1:8470")
        XCTAssertEqual(head.headers["accept"], "text/event-stream")
    }

    func testRefusesAHeadLargerThanTheLimitBeforeItEnds() {
        var parser = HTTPRequestParser(maximumHeadBytes: 8192)
        XCTAssertEqual(parser.feed(Array("GET / HTTP/1.1\r\nX: ".utf8)), .incomplete)
        XCTAssertEqual(parser.feed([UInt8](repeating: 0x61, count: 8200)), .tooLarge)
    }

    func testRefusesMalformedHeads() {
        let bad = ["GET /\r\n\r\n", "GET nothing HTTP/1.1\r\n\r\n", "GET / HTTP/2\r\n\r\n", "get / HTTP/1.1\r\n\r\n",
                   "GET / HTTP/1.1\r\nNoColon\r\n\r\n", "GET / HTTP/1.1\r\n folded: x\r\n\r\n", "GET /\u{0} HTTP/1.1\r\n\r\n"]
        for text in bad {
            var parser = HTTPRequestParser()
            guard case .malformed = parser.feed(Array(text.utf8)) else { return XCTFail("accepted \(text.debugDescription)") }
        }
    }
}
