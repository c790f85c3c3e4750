import XCTest
@testable import LocusProtocol
final class LocusProtocolPlaceholderTests: XCTestCase { func testBuilds() {} }
