import LocusNet
import LocusProtocol
import XCTest
@testable import LocusProvider

/// OwnTracks and OsmAnd/Traccar reports read into fixes, with every refusal naming its field.
final class PhoneReportTests: XCTestCase {
    let now = 1_700_000_100.0

    private func ownTracks(_ json: String, topic: String = "owntracks/alice/pixel") throws(PhoneRefusal) -> OwnTracksReport.Outcome {
        try OwnTracksReport.read(topic: topic, payload: Array(json.utf8), now: now)
    }

    private func refusal(_ body: () throws -> Void) -> PhoneRefusal? {
        do { try body() } catch { return error as? PhoneRefusal }
        return nil
    }

    func testTheDocumentedOwnTracksLocationBecomesAFixInLocusUnits() throws {
        let outcome = try ownTracks("""
            {"_type":"location","tid":"ap","lat":52.5163,"lon":13.3777,"tst":1700000000,"acc":12,"alt":48,"vac":3,
             "vel":36,"cog":270,"batt":81,"bs":1,"conn":"w","t":"u","created_at":1700000001}
            """)
        XCTAssertEqual(outcome, .fix(PhoneFix(device: "pixel", t: 1_700_000_000, lat: 52.5163, lon: 13.3777, hacc: 12, altitude: 48,
                                             vacc: 3, speed: 10, course: 270, battery: 81)))
        let named = try OwnTracksReport.read(topic: "owntracks/alice/pixel", payload: Array(#"{"_type":"location","lat":1,"lon":2,"tst":1700000000}"#.utf8),
                                             naming: .userDevice, now: now)
        guard case .fix(let fix) = named else { return XCTFail("no fix") }
        XCTAssertEqual(fix.device, "alice-pixel")
        XCTAssertNil(fix.hacc)
    }

    func testOtherOwnTracksTypesArePassedOverAndEncryptedOnesRefused() throws {
        XCTAssertEqual(try ownTracks(#"{"_type":"lwt","tst":1700000000}"#), .ignored(type: "lwt"))
        XCTAssertEqual(try ownTracks(#"{"_type":"transition","event":"enter"}"#), .ignored(type: "transition"))
        XCTAssertEqual(refusal { _ = try ownTracks(#"{"_type":"encrypted","data":"abc"}"#) }?.code, .encrypted)
    }

    func testMalformedOutOfRangeAndMissingOwnTracksFieldsAreRefusedByName() {
        let cases: [(String, PhoneRefusal.Code, String)] = [
            ("{\"_type\":\"location\",\"lat\":", .malformed, "not valid JSON"),
            (#"{"_type":"location","lat":"52","lon":13,"tst":1700000000}"#, .malformed, "'lat' must be a number"),
            (#"{"_type":"location","lat":95,"lon":13,"tst":1700000000}"#, .outOfRange, "lat 95.0 is outside −90…90"),
            (#"{"_type":"location","lat":52,"lon":-181,"tst":1700000000}"#, .outOfRange, "lon -181.0 is outside −180…180"),
            (#"{"_type":"location","lat":52,"lon":13,"tst":1700000000,"acc":-5}"#, .outOfRange, "acc -5.0 m"),
            (#"{"_type":"location","lat":52,"lon":13,"tst":1700000000,"batt":140}"#, .outOfRange, "batt 140.0 % is above 100"),
            (#"{"_type":"location","lat":52,"lon":13}"#, .missingField, "has no 'tst'"),
            (#"{"lat":52,"lon":13,"tst":1700000000}"#, .missingField, "has no '_type'"),
            (#"{"_type":"location","lat":52,"lon":13,"tst":1800000000}"#, .badTime, "ahead of this machine's clock"),
            (#"{"_type":"location","lat":52,"lon":13,"tst":1e999}"#, .malformed, "not valid JSON"),
        ]
        for (json, code, text) in cases {
            let refused = refusal { _ = try ownTracks(json) }
            XCTAssertEqual(refused?.code, code, json)
            XCTAssertTrue(refused?.message.contains(text) == true, "\(json): \(refused?.message ?? "accepted")")
        }
        XCTAssertEqual(refusal { _ = try ownTracks(#"{"_type":"location","lat":1,"lon":2,"tst":1700000000}"#, topic: "pixel") }?.code, .badDevice)
    }

    func testAnUnknownSpeedOrCourseIsLeftOutNotRefused() throws {
        guard case .fix(let fix) = try ownTracks(#"{"_type":"location","lat":1,"lon":2,"tst":1700000000,"acc":5,"vel":-1,"cog":-1,"batt":-1}"#) else {
            return XCTFail("no fix")
        }
        XCTAssertNil(fix.speed)
        XCTAssertNil(fix.course)
        XCTAssertNil(fix.battery)
    }

    private func request(_ target: String, method: String = "GET", body: String = "", headers: [String: String] = [:]) -> HTTPRequest {
        HTTPRequest(head: HTTPRequestHead(method: method, target: target, version: "HTTP/1.1", headers: headers), body: Array(body.utf8))
    }

    func testTraccarQueryFormAndJSONReportsAgreeOnUnits() throws {
        let query = try OsmAndReport.read(request("/?id=van-3&lat=48.137&lon=11.575&timestamp=1700000000&speed=10&bearing=90"
                                                  + "&altitude=520&accuracy=7.5&batt=64&hdop=0.9&token=secret"), now: now)
        let knots = 10 * 1852.0 / 3600
        XCTAssertEqual(query, OsmAndReport(device: "van-3", token: "secret", format: .form, fix: PhoneFix(
            device: "van-3", t: 1_700_000_000, lat: 48.137, lon: 11.575, hacc: 7.5, altitude: 520, speed: knots, course: 90, battery: 64)))
        let form = try OsmAndReport.read(request("/", method: "POST", body: "deviceid=van-3&location=48.137%2C11.575&timestamp=1700000000000&heading=90",
                                                 headers: ["authorization": "Bearer secret"]), now: now)
        XCTAssertEqual(form.token, "secret")
        XCTAssertEqual(form.fix?.t, 1_700_000_000, "milliseconds")
        XCTAssertEqual(form.fix?.course, 90)
        let json = try OsmAndReport.read(request("/", method: "POST", body: """
            {"device_id":"van-3","location":{"timestamp":"2023-11-14T22:13:20.000Z","coords":{"latitude":48.137,"longitude":11.575,
             "accuracy":7.5,"speed":5.14,"heading":-1,"altitude":520},"battery":{"level":0.64,"is_charging":false}}}
            """, headers: ["content-type": "application/json"]), now: now)
        XCTAssertEqual(json.format, .json)
        XCTAssertNil(json.token)
        let withToken = try OsmAndReport.read(request("/?token=from-url", method: "POST", body: #"{"device_id":"van-3","location":{"timestamp":"2023-11-14T22:13:20Z"}}"#,
                                                      headers: ["content-type": "application/json"]), now: now)
        XCTAssertEqual(withToken.token, "from-url", "the server URL's query travels with a JSON post")
        XCTAssertEqual(json.fix, PhoneFix(device: "van-3", t: 1_700_000_000, lat: 48.137, lon: 11.575, hacc: 7.5, altitude: 520,
                                          speed: 5.14, course: nil, battery: 64))
    }

    func testTraccarTimestampFormsAndATimelessReportAtNow() throws {
        XCTAssertEqual(try OsmAndReport.timestamp("1700000000"), 1_700_000_000)
        XCTAssertEqual(try OsmAndReport.timestamp("1700000000123"), 1_700_000_000.123, accuracy: 1e-6)
        XCTAssertEqual(try OsmAndReport.timestamp("2023-11-14T22:13:20Z"), 1_700_000_000)
        XCTAssertEqual(try OsmAndReport.timestamp("2023-11-14 22:13:20"), 1_700_000_000)
        XCTAssertEqual(refusal { _ = try OsmAndReport.timestamp("yesterday") }?.code, .badTime)
        XCTAssertEqual(try OsmAndReport.read(request("/?id=a&lat=1&lon=2"), now: now).fix?.t, now)
    }

    func testHeartbeatsAndInvalidPositionsCarryNoFixAndBadReportsAreRefused() throws {
        XCTAssertNil(try OsmAndReport.read(request("/?id=a&batt=50"), now: now).fix)
        XCTAssertNil(try OsmAndReport.read(request("/?id=a&lat=1&lon=2&valid=false"), now: now).fix)
        let cases: [(String, PhoneRefusal.Code)] = [
            ("/?lat=1&lon=2", .missingField), ("/?id=a&lat=1", .missingField), ("/?id=a&lat=abc&lon=2", .malformed),
            ("/?id=a&lat=nan&lon=2", .outOfRange), ("/?id=a&lat=1&lon=2&speed=inf", .outOfRange), ("/?id=a&lat=1&lon=200", .outOfRange),
            ("/?id=a&lat=1&lon=2&bearing=400", .outOfRange), ("/?id=a&lat=1&lon=2&valid=maybe", .malformed),
            ("/?id=a%20b&lat=1&lon=2", .badDevice), ("/?id=a&lat=1&lon=2&timestamp=1900000000", .badTime), ("/?id=a&lat=%zz", .malformed),
            // Found by Fuzz/PhonesFuzz: a time too large for an integer once was a trap in the refusal's message.
            ("/?id=a&lat=1&lon=2&timestamp=17822222222222222222222", .badTime), ("/?id=a&lat=1&lon=2&timestamp=1e308", .badTime),
        ]
        for (target, code) in cases {
            XCTAssertEqual(refusal { _ = try OsmAndReport.read(request(target), now: now) }?.code, code, target)
        }
        let json = refusal { _ = try OsmAndReport.read(request("/", method: "POST", body: #"{"device_id":"a","location":{"coords":{"latitude":1,"longitude":2}}}"#,
                                                               headers: ["content-type": "application/json"]), now: now) }
        XCTAssertEqual(json?.code, .missingField)
        XCTAssertEqual(json?.message, "the Traccar Client report has no 'location.timestamp'")
    }

    func testMappingIsHonestAboutAccuracyAltitudeAndSource() throws {
        let fix = PhoneFix(device: "p", t: 1, lat: 1, lon: 2, hacc: nil, altitude: 40, vacc: 4, speed: 3, course: 10)
        var mapping = PhoneMapping()
        XCTAssertEqual(refusal { _ = try mapping.location(fix) }?.code, .noAccuracy)
        mapping.assumedHacc = 50
        let assumed = try mapping.location(fix)
        XCTAssertEqual(assumed.hacc, 50)
        XCTAssertEqual(assumed.source, "phone")
        XCTAssertNil(assumed.alt, "sea-level or ellipsoid is unknown: dropped")
        XCTAssertNil(assumed.vacc)
        mapping.altitude = .ellipsoid
        let kept = try mapping.location(fix)
        XCTAssertEqual(kept.alt, 40)
        XCTAssertEqual(kept.vacc, 4)
    }

    func testDeviceTokensKnowTheirDevicesAndCompareWholeTokens() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(getpid())")
        try "# phones\nvan-3 0123456789abcdef0123\npixel\tfedcba9876543210fedc # Alice\n\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let tokens = try DeviceTokens(contentsOf: file.path)
        XCTAssertEqual(tokens.devices, ["van-3", "pixel"])
        XCTAssertNil(tokens.check(device: "van-3", token: "0123456789abcdef0123"))
        XCTAssertEqual(tokens.check(device: "van-3", token: "0123456789abcdef012")?.code, .unauthenticated)
        XCTAssertEqual(tokens.check(device: "van-3", token: nil)?.code, .unauthenticated)
        XCTAssertEqual(tokens.check(device: "other", token: "0123456789abcdef0123")?.code, .unknownDevice)
        try "van-3 short\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try DeviceTokens(contentsOf: file.path)) { error in
            XCTAssertTrue("\(error)".hasSuffix(":1: the token of van-3 is shorter than 16 characters"), "\(error)")
        }
    }
}
