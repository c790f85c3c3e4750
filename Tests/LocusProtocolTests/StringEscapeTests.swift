import LocusProtocol
import XCTest

/// Strings: every JSON escape is read, surrogate pairs become one scalar, and the
/// encoder escapes what JSON requires so any text survives a round trip.
final class StringEscapeTests: XCTestCase {
    private func errorReport(_ text: String) -> Message {
        Message(body: .error(ErrorReport(code: "c", message: text)), id: "e", t: 1, src: "s")
    }

    func testAnyTextRoundTrips() throws {
        let texts = [
            "plain", "quote \" backslash \\ slash /", "newline\n tab\t return\r", "bell\u{07} nul\u{00} esc\u{1B} del\u{7F}",
            "Zürich – 東京 – Москва", "emoji 🚚📍 and flag 🇨🇭", "\u{2028}\u{2029}", "", String(repeating: "é", count: 1000),
        ]
        for text in texts {
            let message = errorReport(text)
            XCTAssertEqual(try MessageCodec.decode(MessageCodec.encode(message)), message, text.debugDescription)
        }
    }

    func testEncoderEscapesControlCharactersAndQuotes() {
        let text = String(decoding: MessageCodec.encode(errorReport("a\"b\\c\nd\u{01}e\u{1F}")), as: UTF8.self)
        XCTAssertTrue(text.contains(#""message":"a\"b\\c\nd\u0001e\u001f""#), text)
        XCTAssertFalse(text.utf8.contains { $0 < 0x20 }, "no raw control bytes in the output")
    }

    func testEveryEscapeIsDecoded() throws {
        let body = #"{"v":1,"type":"error","id":"e","t":1,"src":"s","code":"c","message":"\"\\\/\b\f\n\r\t\u0041\u00e9\u6771\ud83d\ude9a"}"#
        let message = try MessageCodec.decode(body)
        XCTAssertEqual(message.body, .error(ErrorReport(code: "c", message: "\"\\/\u{08}\u{0C}\n\r\tAé東🚚")))
    }

    func testEscapedMemberNamesAreMatched() throws {
        let message = try MessageCodec.decode(#"{"v":1,"type":"location","id":"x","t":1,"src":"s","dev\u0069ce":"d","source":"gps","lat":1,"lon":2,"hacc":3}"#)
        guard case .location(let location) = message.body else { return XCTFail("not a location") }
        XCTAssertEqual(location.device, "d")
    }

    func testBrokenSurrogatesAreRejected() {
        for escape in [#"\ud83d"#, #"\ude9a"#, #"\ud83d\u0041"#, #"\ud83dx"#, #"\u12"#, #"\uzzzz"#] {
            let body = #"{"v":1,"type":"error","id":"e","t":1,"src":"s","code":"c","message":"\#(escape)"}"#
            XCTAssertThrowsError(try MessageCodec.decode(body), escape) { error in
                XCTAssertEqual((error as? ProtocolError)?.code, .invalidJSON, escape)
            }
        }
    }
}
