import LocusGeo
import XCTest
@testable import LocusProvider

/// The word-at-a-time scans agree with plain byte loops on every alignment.
final class NMEAByteScanTests: XCTestCase {
    func testScansAgreeWithByteLoops() {
        var random = SeededGenerator(seed: 11)
        let alphabet: [UInt8] = Array("$GPGGA,*0123456789.NE".utf8) + [0x0A, 0x0D, 0x00, 0x1F, 0x7E, 0x7F, 0x80, 0xFF]
        for _ in 0..<2000 {
            let bytes = (0..<Int(random.next() % 40)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            bytes.withUnsafeBufferPointer { buffer in
                for from in 0...bytes.count {
                    let lineEnd = bytes[from...].firstIndex { $0 == 0x0A || $0 == 0x0D } ?? bytes.count
                    XCTAssertEqual(NMEAByteScan.lineEnd(in: buffer, from: from), lineEnd, "\(bytes) from \(from)")
                    XCTAssertEqual(NMEAByteScan.firstIndex(of: 0x2C, in: buffer, from: from),
                                   bytes[from...].firstIndex(of: 0x2C) ?? bytes.count, "\(bytes) from \(from)")
                }
                var commas: [Int] = []
                NMEAByteScan.forEach(0x2C, in: buffer) { commas.append($0) }
                XCTAssertEqual(commas, bytes.indices.filter { bytes[$0] == 0x2C }, "\(bytes)")
                var offset = 0
                while offset + 8 <= bytes.count {
                    let word = UnsafeRawPointer(buffer.baseAddress! + offset).loadUnaligned(as: UInt64.self)
                    let eight = bytes[offset..<(offset + 8)]
                    let plain = eight.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x2A && $0 != 0x24 }
                    XCTAssertEqual(NMEAByteScan.isPlainBody(word), plain, "\(Array(eight))")
                    XCTAssertEqual(NMEAByteScan.xorFold(word), eight.reduce(0, ^), "\(Array(eight))")
                    offset += 1
                }
            }
        }
    }
}
