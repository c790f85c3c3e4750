import LocusFusion
import XCTest

/// The keyed hash behind the approx offsets (libsodium), against the vectors of RFC 4231.
final class HMACSHA256Tests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testHMACAgainstRFC4231() {
        // Test cases 1 to 4 of RFC 4231 (case 5 truncates its output).
        let key1 = [UInt8](repeating: 0x0b, count: 20)
        XCTAssertEqual(hex(HMACSHA256.authenticationCode(key: key1, message: Array("Hi There".utf8))),
                       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        XCTAssertEqual(hex(HMACSHA256.authenticationCode(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        XCTAssertEqual(hex(HMACSHA256.authenticationCode(key: [UInt8](repeating: 0xaa, count: 20), message: [UInt8](repeating: 0xdd, count: 50))),
                       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
        XCTAssertEqual(hex(HMACSHA256.authenticationCode(key: Array(1...25), message: [UInt8](repeating: 0xcd, count: 50))),
                       "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b")
        // Test cases 6 and 7: a key longer than a block is hashed first.
        let key6 = [UInt8](repeating: 0xaa, count: 131)
        XCTAssertEqual(hex(HMACSHA256.authenticationCode(key: key6, message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))),
                       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        let message7 = "This is a test using a larger than block-size key and a larger than block-size data. "
            + "The key needs to be hashed before being used by the HMAC algorithm."
        XCTAssertEqual(hex(HMACSHA256.authenticationCode(key: key6, message: Array(message7.utf8))),
                       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2")
    }

    func testOneKeyGivesEachMessageItsOwnCode() {
        // The absorbed key is copied per code: a second message does not continue the first.
        let mac = HMACSHA256(key: Array("Jefe".utf8))
        let message = Array("what do ya want for nothing?".utf8)
        XCTAssertEqual(hex(mac.authenticationCode(for: message)), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        XCTAssertEqual(mac.authenticationCode(for: message), mac.authenticationCode(for: message))
        XCTAssertNotEqual(mac.authenticationCode(for: message), mac.authenticationCode(for: Array("Hi There".utf8)))
    }
}
