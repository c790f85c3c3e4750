import LocusBus
import LocusService
import XCTest

final class ResendRingTests: XCTestCase {
    private func bodies(_ ring: ResendRing) -> [String] {
        ring.entries.map { String(decoding: $0.body, as: UTF8.self) }
    }

    func testKeepsTheNewestInSendOrderUpToTheCount() {
        var ring = ResendRing(capacity: 3, maxAgeSeconds: 100)
        for index in 0..<7 { ring.record(topic: "t", body: Array("\(index)".utf8), now: Double(index)) }
        XCTAssertEqual(ring.count, 3)
        XCTAssertEqual(bodies(ring), ["4", "5", "6"])
    }

    func testForgetsWhatIsOlderThanTheAgeBoundAtTheNewestSend() {
        var ring = ResendRing(capacity: 100, maxAgeSeconds: 5)
        for second in [0.0, 1, 2, 3, 4, 5, 6, 7, 8] { ring.record(topic: "t", body: Array("\(Int(second))".utf8), now: second) }
        XCTAssertEqual(bodies(ring), ["3", "4", "5", "6", "7", "8"], "at 8 s only sends from 3 s on are kept")
        // Time without sends does not expire anything: the ring is what preceded the loss.
        XCTAssertEqual(ring.count, 6)
        ring.record(topic: "t", body: Array("100".utf8), now: 100)
        XCTAssertEqual(bodies(ring), ["100"])
    }

    func testWrapsAfterExpiryWithoutLosingOrder() {
        var ring = ResendRing(capacity: 4, maxAgeSeconds: 2.5)
        for index in 0..<20 {
            ring.record(topic: "t", body: Array("\(index)".utf8), now: Double(index / 3))
            let expected = (0...index).filter { Double($0 / 3) >= Double(index / 3) - 2.5 }.suffix(4).map(String.init)
            XCTAssertEqual(bodies(ring), Array(expected), "after \(index)")
        }
    }

    func testZeroCapacityKeepsNothing() {
        var ring = ResendRing(capacity: 0)
        ring.record(topic: "t", body: [1], now: 1)
        XCTAssertEqual(ring.count, 0)
        XCTAssertEqual(ring.entries, [])
    }
}
