import CZeroMQ
import LocusBus
import LocusService
import XCTest

/// `ZMQSocket.withReceivedFrames` on a real inproc socket pair: what a message of each
/// shape lends out, and that every frame of it is consumed.
final class ReceivedFramesTests: XCTestCase {
    private var context: ZMQContext!
    private var sender: ZMQSocket!
    private var receiver: ZMQSocket!

    override func setUpWithError() throws {
        context = ZMQContext()
        let endpoint = "inproc://received-frames-\(UUID().uuidString)"
        receiver = try ZMQSocket(context: context, type: .pair)
        try receiver.bind(endpoint)
        sender = try ZMQSocket(context: context, type: .pair)
        try sender.connect(endpoint)
    }

    override func tearDown() {
        sender.close()
        receiver.close()
        context = nil
    }

    private func send(_ frames: [String]) throws {
        for (index, frame) in frames.enumerated() {
            try sender.send(Array(frame.utf8), more: index < frames.count - 1)
        }
    }

    /// Receives one message (blocking) and copies out what was lent, for comparison.
    private func receive() throws -> (count: Int, first: String, second: String)? {
        try receiver.withReceivedFrames(dontWait: false) { frames in
            (frames.count, String(decoding: frames.first, as: UTF8.self), String(decoding: frames.second, as: UTF8.self))
        }
    }

    func testTwoFramesLendTopicAndBody() throws {
        try send(["location.fused.truck-7", #"{"v":1}"#])
        let received = try XCTUnwrap(try receive())
        XCTAssertEqual(received.count, 2)
        XCTAssertEqual(received.first, "location.fused.truck-7")
        XCTAssertEqual(received.second, #"{"v":1}"#)
    }

    func testOneFrameLendsAnEmptySecond() throws {
        try send(["alone"])
        let received = try XCTUnwrap(try receive())
        XCTAssertEqual(received.count, 1)
        XCTAssertEqual(received.first, "alone")
        XCTAssertEqual(received.second, "")
    }

    func testThreeFramesAreAllConsumedAndCounted() throws {
        try send(["topic", "body", "extra"])
        try send(["next", "message"])
        let first = try XCTUnwrap(try receive())
        XCTAssertEqual(first.count, 3)
        XCTAssertEqual(first.first, "topic")
        XCTAssertEqual(first.second, "body")
        // The third frame did not leak into the following message.
        let second = try XCTUnwrap(try receive())
        XCTAssertEqual(second.count, 2)
        XCTAssertEqual(second.first, "next")
        XCTAssertEqual(second.second, "message")
    }

    func testManyFramesAreAllConsumed() throws {
        try send((0..<7).map { "frame\($0)" })
        try send(["after", "it"])
        XCTAssertEqual(try receive()?.count, 7)
        XCTAssertEqual(try receive()?.first, "after")
    }

    func testEmptyFramesLendEmptyBuffers() throws {
        try send(["", ""])
        let received = try XCTUnwrap(try receive())
        XCTAssertEqual(received.count, 2)
        XCTAssertEqual(received.first, "")
        XCTAssertEqual(received.second, "")
    }

    func testLargeBodyIsLentWhole() throws {
        let body = String(repeating: "x", count: 100_000)
        try send(["big", body])
        let received = try XCTUnwrap(try receive())
        XCTAssertEqual(received.second.utf8.count, 100_000)
        XCTAssertEqual(received.second, body)
    }

    func testNothingWaitingReturnsNilWithoutCallingTheClosure() throws {
        var called = false
        let result: Int? = try receiver.withReceivedFrames(dontWait: true) { _ in
            called = true
            return 1
        }
        XCTAssertNil(result)
        XCTAssertFalse(called)
    }

    func testAgreesWithTheCopyingReceive() throws {
        try send(["a", "b", "c"])
        try send(["a", "b", "c"])
        let copied = try XCTUnwrap(try receiver.receiveMultipart())
        let lent = try XCTUnwrap(try receive())
        XCTAssertEqual(lent.count, copied.count)
        XCTAssertEqual(Array(lent.first.utf8), copied[0])
        XCTAssertEqual(Array(lent.second.utf8), copied[1])
    }
}
