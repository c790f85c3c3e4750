import XCTest
@testable import LocusProvider

/// Hostile input must give counted, described errors and never a crash or a fix.
final class NMEABadInputTests: XCTestCase {
    private func feedAll(_ bytes: [UInt8], chunk: Int = 4096) -> (fixes: [NMEAFix], decoder: NMEADecoder) {
        var decoder = NMEADecoder()
        var fixes: [NMEAFix] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            fixes += bytes[start..<end].withUnsafeBytes { decoder.feed(bytes: $0) }
            start = end
        }
        fixes += decoder.finish()
        return (fixes, decoder)
    }

    func testTruncatedLinesAreCountedNotDecoded() {
        let lines = "$GPGGA,225308,4527.458,S,16709.1\n$GPRMC,225308,A,45\n$GP\n$\n"
        let (fixes, decoder) = feedAll(Array(lines.utf8))
        XCTAssertEqual(fixes, [])
        XCTAssertEqual(decoder.counters.truncated, 4)
        XCTAssertNotNil(decoder.lastProblem)
    }

    func testWrongChecksumsAreCounted() {
        let line = "$GPGGA,225308,4527.458,S,16709.165,E,1,05,2.1,14.7,M,1.1,M,,*50\n"
        let (fixes, decoder) = feedAll(Array(String(repeating: line, count: 10).utf8))
        XCTAssertEqual(fixes, [])
        XCTAssertEqual(decoder.counters.badChecksum, 10)
        XCTAssertEqual(decoder.lastProblem, "bad checksum: line says 50, body sums to 53")
    }

    func testTenMegabyteLineIsDroppedWithoutBufferingAndDecodingResumes() {
        var bytes = [UInt8](repeating: 0x41, count: 10 * 1024 * 1024)
        bytes += Array("\n$GPGGA,225308,4527.458,S,16709.165,E,1,05,2.1,14.7,M,1.1,M,,*53\n".utf8)
        bytes += Array("$GPGGA,225309,4527.458,S,16709.165,E,1,05,2.1,14.7,M,1.1,M,,*52\n".utf8)
        let (fixes, decoder) = feedAll(bytes, chunk: 65536)
        XCTAssertEqual(decoder.counters.tooLong, 1)
        XCTAssertEqual(fixes.count, 2)
        XCTAssertEqual(fixes.first?.lat ?? 0, -45.457633333, accuracy: 1e-9)
    }

    func testTenMegabyteLineAsOneSubstring() {
        var decoder = NMEADecoder()
        let line = "$GPGGA," + String(repeating: "1", count: 10 * 1024 * 1024)
        XCTAssertEqual(decoder.feed(line: Substring(line)), [])
        XCTAssertEqual(decoder.counters.tooLong, 1)
    }

    func testBinaryInputGivesNoFixAndNoCrash() {
        var generator = SplitMix64(seed: 0x5EED)
        let bytes = (0..<1_000_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let (fixes, decoder) = feedAll(bytes)
        XCTAssertEqual(fixes, [])
        XCTAssertEqual(decoder.counters.sentences, 0)
        XCTAssertGreaterThan(decoder.counters.notNMEA + decoder.counters.truncated + decoder.counters.tooLong, 0)
    }

    func testRandomPrintableNoiseAroundValidSentences() {
        var generator = SplitMix64(seed: 42)
        let alphabet = Array("$*,.0123456789ABCDEFGPRMCNSEW\r\n".utf8)
        var bytes: [UInt8] = []
        for _ in 0..<2000 {
            for _ in 0..<Int(generator.next() % 90) { bytes.append(alphabet[Int(generator.next() % UInt64(alphabet.count))]) }
            bytes.append(0x0A)
        }
        let (fixes, decoder) = feedAll(bytes, chunk: 7)
        for fix in fixes {
            XCTAssertTrue((-90...90).contains(fix.lat) && (-180...180).contains(fix.lon))
            XCTAssertTrue(fix.hacc > 0 && fix.hacc.isFinite)
        }
        XCTAssertGreaterThan(decoder.counters.lines, 0)
    }

    /// Every prefix of a valid stream decodes without trapping.
    func testEveryTruncationOfAValidStream() {
        let stream = Array("""
        $GPRMC,225308,A,4527.458,S,16709.165,E,000.0,094.5,060601,024.1,E*6D
        $GPGGA,225308,4527.458,S,16709.165,E,1,05,2.1,14.7,M,1.1,M,,*53
        $GPGSA,A,3,01,,,,13,20,22,,,,28,,3.1,2.1,2.0*3A

        """.utf8)
        for length in 0...stream.count {
            let (fixes, _) = feedAll(Array(stream[0..<length]))
            XCTAssertLessThanOrEqual(fixes.count, 1)
        }
    }
}

/// A tiny deterministic generator so noise tests are reproducible.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
