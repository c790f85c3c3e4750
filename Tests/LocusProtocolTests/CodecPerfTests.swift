import Foundation
import LocusProtocol
import XCTest

/// Prints encode/decode rates of the codec next to Foundation's Codable path for the same
/// location. Asserts correctness only; the figures are for a person (run with
/// `swift test -c release -Xswiftc -enable-testing --filter CodecPerf`).
final class CodecPerfTests: XCTestCase {
    private struct CodableFix: Codable, Equatable {
        var v: Int, type: String, id: String, t: Double, src: String, seq: Int?
        var device: String, source: String, lat: Double, lon: Double, hacc: Double
        var alt: Double?, speed: Double?, course: Double?, mode: String?, sats: Int?, hdop: Double?
    }

    private let message = Message(
        body: .location(Location(
            device: "truck-7", source: "gps", lat: 37.42199830000001, lon: -122.08400000000002, hacc: 4.8,
            alt: 31.5, speed: 13.4, course: 271.3, mode: "3d", sats: 11, hdop: 0.9)),
        id: "3f9a61c2d4e8b705-1842", t: 1_715_012_345.25, src: "provider/gps0", seq: 1842)

    private func rate(_ count: Int, _ body: () throws -> Void) rethrows -> Double {
        var best = 0.0
        for _ in 0..<3 {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<count { try body() }
            best = max(best, Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
        }
        return best
    }

    func testCodecPerfAgainstFoundation() throws {
        #if DEBUG
        let count = 2_000
        #else
        let count = 100_000
        #endif
        let bytes = MessageCodec.encode(message)
        XCTAssertEqual(try MessageCodec.decode(bytes), message)
        let fix = try JSONDecoder().decode(CodableFix.self, from: Data(bytes))
        XCTAssertEqual(fix.lat, 37.42199830000001)
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        let data = try encoder.encode(fix)
        XCTAssertEqual(try decoder.decode(CodableFix.self, from: data), fix)

        var sink = 0
        let oursEncode = rate(count) { sink &+= MessageCodec.encode(message).count }
        let oursDecode = try rate(count) { sink &+= try MessageCodec.decode(bytes).envelope.seq ?? 0 }
        let oursBoth = try rate(count) { sink &+= try MessageCodec.decode(MessageCodec.encode(message)).envelope.seq ?? 0 }
        let foundationEncode = try rate(count) { sink &+= try encoder.encode(fix).count }
        let foundationDecode = try rate(count) { sink &+= try decoder.decode(CodableFix.self, from: data).sats ?? 0 }
        let foundationBoth = try rate(count) { sink &+= try decoder.decode(CodableFix.self, from: encoder.encode(fix)).sats ?? 0 }
        XCTAssertGreaterThan(sink, 0)
        func line(_ name: String, _ ours: Double, _ foundation: Double) -> String {
            String(format: "| %@ | %.0f | %.0f | %.1f× |", name, ours, foundation, ours / foundation)
        }
        print("""
            | operation | Locus codec msg/s | Foundation msg/s | ratio |
            |---|---:|---:|---:|
            \(line("encode", oursEncode, foundationEncode))
            \(line("decode", oursDecode, foundationDecode))
            \(line("encode+decode", oursBoth, foundationBoth))
            """)
    }
}
