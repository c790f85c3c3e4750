import LocusProtocol
import XCTest

/// Encode → decode gives back the same message, for every type, with and without optionals.
final class RoundTripTests: XCTestCase {
    func testEveryFullBodyRoundTrips() throws {
        XCTAssertEqual(Set(Samples.fullBodies.map(\.type)).count, 18, "one sample per wire type (region.list twice)")
        for body in Samples.fullBodies {
            let message = Samples.message(body)
            let decoded = try MessageCodec.decode(MessageCodec.encode(message))
            XCTAssertEqual(decoded, message, body.type)
        }
    }

    func testEveryMinimalBodyRoundTrips() throws {
        for body in Samples.minimalBodies {
            let message = Samples.message(body, seq: nil)
            XCTAssertEqual(try MessageCodec.decode(MessageCodec.encode(message)), message, body.type)
        }
    }

    func testDecodingFromStringBytesAndBufferAgree() throws {
        let message = Samples.message(Samples.fullBodies[0])
        let bytes = MessageCodec.encode(message)
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertEqual(try MessageCodec.decode(text), message)
        let fromBuffer = try bytes.withUnsafeBytes { raw in try MessageCodec.decode(raw) }
        XCTAssertEqual(fromBuffer, message)
    }

    func testEnvelopeTypeFollowsBody() {
        for body in Samples.fullBodies {
            XCTAssertEqual(Samples.message(body).envelope.type, body.type)
        }
        XCTAssertEqual(Body.regionListRequest(RegionListRequest(owner: "o")).type, "region.list")
        XCTAssertEqual(Body.regionList(RegionListReply(owner: "o", regions: [])).type, "region.list")
    }

    func testRegionListWithoutRegionsIsARequestAndWithRegionsAReply() throws {
        let request = try MessageCodec.decode(#"{"v":1,"type":"region.list","id":"q","t":1,"src":"cli","owner":"alice"}"#)
        XCTAssertEqual(request.body, .regionListRequest(RegionListRequest(owner: "alice")))
        let reply = try MessageCodec.decode(#"{"v":1,"type":"region.list","id":"r","t":1,"src":"geofence","owner":"alice","regions":[],"re":"q"}"#)
        XCTAssertEqual(reply.body, .regionList(RegionListReply(owner: "alice", regions: [], re: "q")))
    }

    func testNumbersSurviveTheRoundTripBitForBit() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let lat = Double.random(in: -90...90, using: &generator)
            let lon = Double.random(in: -180...180, using: &generator)
            let hacc = Double(bitPattern: UInt64.random(in: 0x3CB0_0000_0000_0000...0x47D0_0000_0000_0000, using: &generator))
            let alt = Double(bitPattern: UInt64.random(in: 0...0x7FEF_FFFF_FFFF_FFFF, using: &generator)) * (Bool.random() ? 1 : -1)
            let message = Message(
                body: .location(Location(device: "d", source: "sim", lat: lat, lon: lon, hacc: hacc, alt: alt)),
                id: "n", t: Double.random(in: 0...2e9, using: &generator), src: "s")
            let decoded = try MessageCodec.decode(MessageCodec.encode(message))
            guard case .location(let location) = decoded.body else { return XCTFail("not a location") }
            XCTAssertEqual(location.lat.bitPattern, lat.bitPattern)
            XCTAssertEqual(location.lon.bitPattern, lon.bitPattern)
            XCTAssertEqual(location.hacc.bitPattern, hacc.bitPattern)
            XCTAssertEqual(location.alt?.bitPattern, alt.bitPattern)
            XCTAssertEqual(decoded.envelope.t, message.envelope.t)
        }
    }
}
