import LocusFusion
import XCTest

final class SHA256Tests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testKnownDigests() {
        // FIPS 180-4 examples.
        XCTAssertEqual(hex(SHA256.hash(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex(SHA256.hash([UInt8]())), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testMillionAs() {
        XCTAssertEqual(hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testHMACAgainstRFC4231() {
        // Test case 1 and 2 of RFC 4231.
        let key1 = [UInt8](repeating: 0x0b, count: 20)
        XCTAssertEqual(hex(HMACSHA256.authenticationCode(key: key1, message: Array("Hi There".utf8))),
                       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        XCTAssertEqual(hex(HMACSHA256.authenticationCode(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 6: a key longer than a block is hashed first.
        let key6 = [UInt8](repeating: 0xaa, count: 131)
        XCTAssertEqual(hex(HMACSHA256.authenticationCode(key: key6, message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))),
                       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}
