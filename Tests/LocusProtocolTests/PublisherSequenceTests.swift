import LocusProtocol
import XCTest

final class PublisherSequenceTests: XCTestCase {
    private func read(_ text: String) -> (src: String, seq: Int)? {
        Array(text.utf8).withUnsafeBytes { MessageCodec.publisherSequence($0) }
    }

    func testReadsSrcAndSeqFromAnEncodedMessage() throws {
        let message = Message(body: .location(Location(device: "d", source: "gps", lat: 1, lon: 2, hacc: 3)),
                              id: "i", t: 5, src: "fusion/main", seq: 42)
        let found = try XCTUnwrap(MessageCodec.encode(message).withUnsafeBytes { MessageCodec.publisherSequence($0) })
        XCTAssertEqual(found.src, "fusion/main")
        XCTAssertEqual(found.seq, 42)
    }

    func testAnyOrderEscapesAndUnknownMembers() throws {
        let found = try XCTUnwrap(read(#" { "x": [1, {"y": "z"}], "seq": 7.0, "a": null, "src": "p\/q" } "#))
        XCTAssertEqual(found.src, "p/q")
        XCTAssertEqual(found.seq, 7)
    }

    func testStopsOnceBothAreRead() throws {
        // What follows is not read: the message is skipped, not validated.
        XCTAssertEqual(read(#"{"src":"s","seq":1, garbage"#)?.seq, 1)
    }

    func testNilWithoutAUsableSrcOrSeq() {
        for text in [#"{"src":"s"}"#, #"{"seq":1}"#, #"{"src":"s","seq":-1}"#, #"{"src":"s","seq":1.5}"#,
                     #"{"src":3,"seq":1}"#, #"{"src":"s","seq":"1"}"#, "[]", "", "{}", #"{"src":"s","#, "not json"] {
            XCTAssertNil(read(text), text)
        }
    }
}
