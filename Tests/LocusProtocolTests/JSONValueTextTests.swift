import XCTest
@testable import LocusProtocol

/// JSON text to and from `JSONValue`, for code that edits a body before passing it on.
final class JSONValueTextTests: XCTestCase {
    func testAnEditedObjectIsWrittenCompactWithSortedMembers() throws {
        let body = Array(#"{"type":"health","t":1700000000.25,"detail":{"b":"x/y","a":[1,true,null]},"n":-3}"#.utf8)
        guard case .object(var members) = try JSONValue(parsing: body) else { return XCTFail("not an object") }
        members["sender"] = .string("gps0")
        members["n"] = nil
        XCTAssertEqual(String(decoding: JSONValue.object(members).jsonBytes, as: UTF8.self),
                       #"{"detail":{"a":[1,true,null],"b":"x/y"},"sender":"gps0","t":1700000000.25,"type":"health"}"#)
    }

    func testWhatTheCodecRefusesIsRefused() {
        XCTAssertThrowsError(try JSONValue(parsing: Array(#"{"lat":NaN}"#.utf8)))
        XCTAssertThrowsError(try JSONValue(parsing: Array(#"{"a":1} {"b":2}"#.utf8)))
        XCTAssertThrowsError(try JSONValue(parsing: Array(repeating: UInt8(ascii: "["), count: 100) + Array(repeating: UInt8(ascii: "]"), count: 100)))
    }
}
