import LocusNet
import XCTest

final class OutboundQueueTests: XCTestCase {
    func testBoundRefusesWhatWouldOverflowAndPartialWritesResume() {
        var queue = OutboundQueue(limitBytes: 10)
        XCTAssertTrue(queue.append(Array("hello".utf8)))
        XCTAssertTrue(queue.append(Array("world".utf8)))
        XCTAssertFalse(queue.append([0x21]))
        XCTAssertEqual(queue.queuedBytes, 10)
        var sink: [UInt8] = []
        // A socket that takes 3 bytes, then is full.
        var budget = 3
        XCTAssertEqual(queue.drain { bytes in
            let n = min(budget, bytes.count)
            sink += bytes.prefix(n)
            budget -= n
            return n
        }, 3)
        XCTAssertEqual(queue.queuedBytes, 7)
        XCTAssertTrue(queue.append([0x21]))
        XCTAssertEqual(queue.drain { bytes in sink += bytes; return bytes.count }, 8)
        XCTAssertEqual(String(decoding: sink, as: UTF8.self), "helloworld!")
        XCTAssertTrue(queue.isEmpty)
        // An empty queue never touches the socket.
        XCTAssertEqual(queue.drain { _ in XCTFail("write called on an empty queue"); return -1 }, 0)
    }

    func testFailedWriteIsReported() {
        var queue = OutboundQueue(limitBytes: 100)
        queue.append([1, 2, 3])
        XCTAssertNil(queue.drain { _ in -1 })
    }
}
