import LocusProtocol
import XCTest

/// Lines read as bytes: `TextForm.decode` gives the same message or the same error as
/// `parse` followed by `MessageCodec.decode`; topics are checked and compared on bytes.
final class TextFormBytesTests: XCTestCase {
    private func viaBytes(_ line: String) -> Result<(String, Message), ProtocolError> {
        var line = line
        return line.withUTF8 { utf8 in Result { () throws(ProtocolError) in try TextForm.decode(UnsafeRawBufferPointer(utf8)) } }
            .map { ($0.topic, $0.message) }
    }

    private func viaParse(_ line: String) -> Result<(String, Message), ProtocolError> {
        Result { () throws(ProtocolError) in
            let parsed = try TextForm.parse(line[...])
            return (parsed.topic, try MessageCodec.decode(parsed.body))
        }
    }

    func testDecodeAgreesWithParseThenDecode() {
        let good = TextForm.line(topic: "location.raw.truck-7", body: MessageCodec.encode(Samples.message(Samples.fullBodies[0])))
        let lines = [
            good, good + "\r\n", "location.raw.x", "", " {\"v\":1}", "a\u{01}b {}", "topic ", "topic not-json", "topic {\"v\":1",
            "topic {} trailing", "topic {\"v\":NaN}", "topic {}", "topic [1,2]", "topic {\"v\":2,\"type\":\"location\"}",
            "location.raw.x {\"v\":1,\"type\":\"location\",\"id\":\"a\",\"t\":1,\"src\":\"s\",\"device\":\"x\",\"source\":\"gps\",\"lat\":91,\"lon\":0,\"hacc\":5}",
            "täst.ö {\"v\":1}",
        ]
        for line in lines {
            switch (viaBytes(line), viaParse(line)) {
            case let (.success(a), .success(b)):
                XCTAssertEqual(a.0, b.0, line)
                XCTAssertEqual(a.1, b.1, line)
            case let (.failure(a), .failure(b)):
                XCTAssertEqual(a.code, b.code, line)
                XCTAssertEqual(a.message, b.message, line)
            case let (a, b):
                XCTFail("\(line.debugDescription): bytes \(a), parse \(b)")
            }
        }
    }

    func testTopicNamesDeviceOnBytesAsSuffixDoes() {
        let cases: [(String, String, String)] = [
            ("location.raw.car", "location.raw.", "car"), ("location.raw.car2", "location.raw.", "car"),
            ("location.raw.", "location.raw.", ""), ("location.fused.car", "location.raw.", "car"),
            ("location.raw.bad id", "location.raw.", "bad id"), ("location.raw.café", "location.raw.", "café"),
            ("location.raw.cafe\u{301}", "location.raw.", "café"), ("location.raw.車", "location.raw.", "車"),
        ]
        for (topic, prefix, id) in cases {
            XCTAssertEqual(Topic.topic(topic, is: prefix, plus: id), Topic.suffix(of: topic, after: prefix) == id, "\(topic) \(id)")
        }
    }

    func testMessageIDsAreThePrefixAndACounter() {
        var ids = MessageIDGenerator()
        let first = ids.next()
        let parts = first.split(separator: "-")
        XCTAssertEqual(parts.count, 2)
        XCTAssertEqual(parts[0].count, 16)
        XCTAssertTrue(parts[0].allSatisfy(\.isHexDigit))
        XCTAssertEqual(parts[1], "1")
        for expected in 2...12_345 { XCTAssertEqual(ids.next(), parts[0] + "-\(expected)") }
    }
}
