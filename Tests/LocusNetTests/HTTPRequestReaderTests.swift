import LocusNet
import XCTest

final class HTTPRequestReaderTests: XCTestCase {
    func testReadsABodyOfContentLengthThatArrivesInPieces() {
        var reader = HTTPRequestReader(maximumBodyBytes: 64)
        XCTAssertEqual(reader.feed(Array("POST /?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nid=ph".utf8)), .incomplete)
        guard case .complete(let request) = reader.feed(Array("one&lat=1trailing".utf8)) else { return XCTFail("not complete") }
        XCTAssertEqual(request.head.method, "POST")
        XCTAssertEqual(request.head.query, "x=1")
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "id=phone&la", "exactly Content-Length bytes")
    }

    func testABodyThatCameWithTheHeadCompletesAtOnce() {
        var reader = HTTPRequestReader(maximumBodyBytes: 64)
        guard case .complete(let request) = reader.feed(Array("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc".utf8)) else {
            return XCTFail("not complete")
        }
        XCTAssertEqual(request.body, Array("abc".utf8))
    }

    func testRefusesBodiesLargerThanTheLimitChunkedBodiesAndBadLengths() {
        var large = HTTPRequestReader(maximumBodyBytes: 10)
        XCTAssertEqual(large.feed(Array("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n".utf8)),
                       .refused(status: 413, reason: "request body of 11 bytes is larger than 10"))
        var chunked = HTTPRequestReader(maximumBodyBytes: 10)
        guard case .refused(411, _) = chunked.feed(Array("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)) else {
            return XCTFail("chunked body accepted")
        }
        var negative = HTTPRequestReader(maximumBodyBytes: 10)
        guard case .refused(400, _) = negative.feed(Array("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n".utf8)) else {
            return XCTFail("negative length accepted")
        }
    }

    func testWithoutABodyLimitARequestEndsAtItsHead() {
        var reader = HTTPRequestReader()
        guard case .complete(let request) = reader.feed(Array("GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\n".utf8)) else {
            return XCTFail("not complete")
        }
        XCTAssertEqual(request.head.path, "/metrics")
        XCTAssertEqual(request.body, [])
    }

    func testHeadProblemsKeepTheirStatus() {
        var small = HTTPRequestReader(maximumHeadBytes: 32)
        guard case .refused(431, _) = small.feed([UInt8](repeating: 0x41, count: 40)) else { return XCTFail("large head accepted") }
        var bad = HTTPRequestReader()
        guard case .refused(400, _) = bad.feed(Array("get / HTTP/1.1\r\n\r\n".utf8)) else { return XCTFail("bad method accepted") }
    }
}

final class QueryStringTests: XCTestCase {
    func testDecodesPlusPercentAndEmptyValuesInOrder() throws {
        let pairs = try QueryString.parse("id=my+phone&lat=52.5&note=caf%C3%A9%26co&flag&&lon=")
        XCTAssertEqual(pairs.map(\.name), ["id", "lat", "note", "flag", "lon"])
        XCTAssertEqual(pairs.map(\.value), ["my phone", "52.5", "café&co", "", ""])
    }

    func testRefusesBrokenEscapesAndInvalidUTF8NamingTheField() {
        XCTAssertThrowsError(try QueryString.parse("lat=5%2")) { error in
            XCTAssertEqual("\(error)", "field 'lat' has a '%' not followed by two hex digits")
        }
        XCTAssertThrowsError(try QueryString.parse("id=%FF%FE")) { error in
            XCTAssertEqual("\(error)", "field 'id' is not UTF-8 once decoded")
        }
    }
}
