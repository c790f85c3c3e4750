import XCTest
@testable import LocusBus
final class LocusBusPlaceholderTests: XCTestCase { func testBuilds() {} }
