import XCTest
@testable import LocusGeo
final class LocusGeoPlaceholderTests: XCTestCase { func testBuilds() {} }
