import LocusGeo
import XCTest
@testable import LocusProvider

/// The word-at-a-time position count agrees with counting one character at a time.
final class XMLPositionTests: XCTestCase {
    func testAgreesWithCountingCharacterByCharacter() {
        var random = SeededGenerator(seed: 7)
        let pieces = ["a", "<gpx>", "\n", "é", "€", "😀", " ", "\r\n", "\t"]
        for _ in 0..<300 {
            let text = (0..<Int(random.next() % 120)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                var line = 1
                var column = 1
                var offset = 0
                for character in text.unicodeScalars {
                    XCTAssertTrue(XMLPosition.of(offset: offset, in: buffer, from: 0) == (line, column), "\(text.debugDescription) at \(offset)")
                    if character == "\n" {
                        line += 1
                        column = 1
                    } else {
                        column += 1
                    }
                    offset += String(character).utf8.count
                }
                XCTAssertTrue(XMLPosition.of(offset: bytes.count, in: buffer, from: 0) == (line, column), text.debugDescription)
            }
        }
    }
}
