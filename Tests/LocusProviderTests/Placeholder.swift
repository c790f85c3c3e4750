import XCTest
@testable import LocusProvider
final class LocusProviderPlaceholderTests: XCTestCase { func testBuilds() {} }
