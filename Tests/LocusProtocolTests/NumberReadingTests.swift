import LocusProtocol
import XCTest

/// Numbers read from bodies are the correctly rounded Double of their text: the 15-digit
/// fast path, the 16–19 digit path exact in 128 bits, and the library parser beyond.
final class NumberReadingTests: XCTestCase {
    /// The `hacc` read back from a location body whose `hacc` member is `text`.
    private func read(_ text: String) throws -> Double {
        let body = #"{"v":1,"type":"location","id":"n","t":1,"src":"test","device":"d","source":"gps","lat":0,"lon":0,"hacc":"#
            + text + "}"
        guard case .location(let location) = try MessageCodec.decode(body).body else { throw XCTSkip("not a location") }
        return location.hacc
    }

    func testFullPrecisionNumbersReadBackBitForBit() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            // Magnitudes from tiny accuracies to large ones; every value written as Swift
            // prints it (shortest) and with 17 significant digits.
            let value = Double.random(in: 1...10, using: &random) * pow(10, Double(Int.random(in: -12...14, using: &random)))
            XCTAssertEqual(try read(value.description).bitPattern, value.bitPattern, value.description)
            let long = String(format: "%.16e", value)
            XCTAssertEqual(try read(long).bitPattern, Double(long)!.bitPattern, long)
        }
    }

    func testLongMantissasRoundLikeTheLibrary() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            // 16 to 19 digits with a decimal exponent of −19 … 19, including halfway cases' neighbours.
            let digits = Int.random(in: 16...19, using: &random)
            var mantissa = String(Int.random(in: 1...9, using: &random))
            for _ in 1..<digits { mantissa += String(Int.random(in: 0...9, using: &random)) }
            let exponent = Int.random(in: -19...19, using: &random)
            let text = mantissa + "e" + String(exponent)
            XCTAssertEqual(try read(text).bitPattern, Double(text)!.bitPattern, text)
        }
        for text in ["9007199254740993", "9007199254740995", "18446744073709551615", "1844674407370955161.5e-2",
                     "45.12345678901234567", "0.1000000000000000055511151231257827", "7.0000000000000001", "1e19", "99999999999999999999"] {
            XCTAssertEqual(try read(text).bitPattern, Double(text)!.bitPattern, text)
        }
    }
}
