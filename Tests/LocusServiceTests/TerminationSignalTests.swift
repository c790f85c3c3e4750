import Foundation

import LocusService
import XCTest

final class TerminationSignalTests: XCTestCase {
    /// A SIGTERM raised the instant the handler is installed — before Dispatch has had a
    /// chance to register anything — must still reach the owner (it used to be ignored).
    func testASignalRightAfterInstallingIsNotLost() {
        let received = expectation(description: "SIGTERM reported")
        let numbers = SignalNumbers()
        let sources = ServiceProgram.handleTerminationSignals { number in
            numbers.append(number)
            received.fulfill()
        }
        defer { sources.forEach { $0.cancel() } }
        raise(SIGTERM)
        wait(for: [received], timeout: 5)
        XCTAssertEqual(numbers.values, [SIGTERM])
    }
}

/// Signal numbers collected on a Dispatch thread.
private final class SignalNumbers: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [Int32] = []

    func append(_ number: Int32) { lock.withLock { collected.append(number) } }
    var values: [Int32] { lock.withLock { collected } }
}
