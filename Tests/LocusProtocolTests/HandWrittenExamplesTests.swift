import LocusProtocol
import XCTest

/// Bodies written by hand the way an outside tool (Python's json.dumps, jq) would send
/// them, following docs/protocol.md, decode to the expected typed message.
final class HandWrittenExamplesTests: XCTestCase {
    private func decode(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Message? {
        do {
            return try MessageCodec.decode(text)
        } catch {
            XCTFail("rejected: \(error.message)", file: file, line: line)
            return nil
        }
    }

    func testLocationFromAPythonProvider() {
        let message = decode("""
            {"v": 1, "type": "location", "id": "wifi-1", "t": 1715000000.5, "src": "provider/wifi",
             "device": "laptop", "source": "wifi", "lat": 47.3769, "lon": 8.5417, "hacc": 35.0}
            """)
        XCTAssertEqual(message?.envelope, Envelope(type: "location", id: "wifi-1", t: 1_715_000_000.5, src: "provider/wifi"))
        XCTAssertEqual(message?.body, .location(Location(device: "laptop", source: "wifi", lat: 47.3769, lon: 8.5417, hacc: 35)))
    }

    func testRegionAddWithGeoJSONPolygonAndAltitudes() {
        let message = decode("""
            {"v":1,"type":"region.add","id":"c1","t":1715000000,"src":"cli","owner":"alice",
             "region":{"id":"yard","shape":{"type":"Polygon","coordinates":[[[8.54,47.37,400],[8.55,47.37],[8.55,47.38],[8.54,47.37]]]},
             "dwell":60,"devices":["truck-7"]}}
            """)
        let ring = [GeoPoint(lon: 8.54, lat: 47.37), GeoPoint(lon: 8.55, lat: 47.37), GeoPoint(lon: 8.55, lat: 47.38), GeoPoint(lon: 8.54, lat: 47.37)]
        XCTAssertEqual(message?.body, .regionAdd(RegionAdd(owner: "alice", region: Region(id: "yard", shape: .polygon([ring]), dwell: 60, devices: ["truck-7"]))))
    }

    func testRegionAddWithCircleDefaultsNotifyFlagsToTrue() {
        let message = decode(#"{"v":1,"type":"region.add","id":"c2","t":1,"src":"cli","owner":"alice","region":{"id":"home","shape":{"type":"Circle","center":[8.5417,47.3769],"radius":150}}}"#)
        guard case .regionAdd(let add)? = message?.body else { return XCTFail("not region.add") }
        XCTAssertEqual(add.region.shape, .circle(center: GeoPoint(lon: 8.5417, lat: 47.3769), radius: 150))
        XCTAssertTrue(add.region.notifyOnEntry)
        XCTAssertTrue(add.region.notifyOnExit)
        XCTAssertNil(add.region.devices)
    }

    func testRegionCommandsAndReplies() {
        XCTAssertEqual(decode(#"{"v":1,"type":"region.remove","id":"c3","t":1,"src":"cli","owner":"alice","regionId":"home"}"#)?.body,
                       .regionRemove(RegionRemove(owner: "alice", regionId: "home")))
        XCTAssertEqual(decode(#"{"v":1,"type":"region.requestState","id":"c4","t":1,"src":"cli","owner":"alice","regionId":"home"}"#)?.body,
                       .regionRequestState(RegionRequestState(owner: "alice", regionId: "home")))
        XCTAssertEqual(decode(#"{"v":1,"type":"region.removed","id":"g1","t":1,"src":"geofence","owner":"alice","regionId":"home","re":"c3"}"#)?.body,
                       .regionRemoved(RegionRemoved(owner: "alice", regionId: "home", re: "c3")))
        XCTAssertEqual(decode(#"{"v":1,"type":"region.failed","id":"g2","t":1,"src":"geofence","owner":"alice","regionId":"r","code":"tooManyRegions","message":"limit is 20"}"#)?.body,
                       .regionFailed(RegionFailed(owner: "alice", regionId: "r", code: .tooManyRegions, message: "limit is 20")))
    }

    func testRegionEvent() {
        let message = decode("""
            {"v":1,"type":"region.event","id":"e1","t":1715000001,"src":"geofence","seq":12,"owner":"alice","regionId":"home",
             "device":"truck-7","event":"exit","state":"outside","cause":"crossing","location":{"lat":47.38,"lon":8.55,"hacc":5,"t":1715000000}}
            """)
        XCTAssertEqual(message?.envelope.seq, 12)
        XCTAssertEqual(message?.body, .regionEvent(RegionEvent(
            owner: "alice", regionId: "home", device: "truck-7", event: .exit, state: .outside, cause: .crossing,
            location: FixRef(lat: 47.38, lon: 8.55, hacc: 5, t: 1_715_000_000))))
    }

    func testAuthorizationMessages() {
        XCTAssertEqual(decode(#"{"v":1,"type":"auth.request","id":"a1","t":1,"src":"app","client":"app-1","level":"always"}"#)?.body,
                       .authRequest(AuthRequest(client: "app-1", level: "always")))
        XCTAssertEqual(decode(#"{"v":1,"type":"auth.set","id":"a2","t":1,"src":"admin","client":"app-1","status":"denied"}"#)?.body,
                       .authSet(AuthSet(client: "app-1", status: .denied)))
        XCTAssertEqual(decode(#"{"v":1,"type":"auth.status","id":"a3","t":1,"src":"bus","client":"app-1","status":"whenInUse","accuracy":"reduced","temporaryFull":{"purpose":"nav","expires":1715003600}}"#)?.body,
                       .authStatus(AuthStatus(client: "app-1", status: .whenInUse, accuracy: .reduced, temporaryFull: TemporaryFull(purpose: "nav", expires: 1_715_003_600))))
    }

    func testDeviceAndServiceMessages() {
        XCTAssertEqual(decode(#"{"v":1,"type":"motion","id":"m1","t":1,"src":"motion","device":"d","activity":"walking","confidence":"medium"}"#)?.body,
                       .motion(Motion(device: "d", activity: .walking, confidence: .medium)))
        XCTAssertEqual(decode(#"{"v":1,"type":"control","id":"k1","t":1,"src":"motion","device":"d","paused":true,"reason":"stationary"}"#)?.body,
                       .control(Control(device: "d", paused: true, reason: "stationary")))
        XCTAssertEqual(decode(#"{"v":1,"type":"visit","id":"v1","t":1,"src":"fusion","device":"d","lat":1.5,"lon":2.5,"hacc":30,"arrival":100}"#)?.body,
                       .visit(Visit(device: "d", lat: 1.5, lon: 2.5, hacc: 30, arrival: 100)))
        XCTAssertEqual(decode(#"{"v":1,"type":"notification","id":"n1","t":1,"src":"notifier","ref":"e1","title":"T","body":"B","sink":"stdout","status":"suppressed"}"#)?.body,
                       .notification(Notification(ref: "e1", title: "T", body: "B", sink: "stdout", status: .suppressed)))
        XCTAssertEqual(decode(#"{"v":1,"type":"health","id":"h1","t":1,"src":"bus","service":"bus","state":"ok","uptime":3.5,"counters":{"received":5,"dropped":0}}"#)?.body,
                       .health(Health(service: "bus", state: .ok, uptime: 3.5, counters: ["received": 5, "dropped": 0])))
        XCTAssertEqual(decode(#"{"v":1,"type":"error","id":"x1","t":1,"src":"fusion","code":"outOfRange","message":"location.lat: 95 is out of range [-90, 90]","topic":"location.raw.d"}"#)?.body,
                       .error(ErrorReport(code: "outOfRange", message: "location.lat: 95 is out of range [-90, 90]", topic: "location.raw.d")))
    }

    func testWhitespaceAroundEveryTokenIsAccepted() {
        let message = decode(" \n{ \"v\" : 1 ,\t\"type\" : \"motion\" , \"id\" : \"m\" , \"t\" : 0 , \"src\" : \"s\" , \"device\" : \"d\" , \"activity\" : \"unknown\" , \"confidence\" : \"low\" }\r\n ")
        XCTAssertEqual(message?.body, .motion(Motion(device: "d", activity: .unknown, confidence: .low)))
    }

    func testIntegersWrittenAsFloatsAreAcceptedForIntegerFields() {
        let message = decode(#"{"v":1.0,"type":"location","id":"i","t":1,"src":"s","seq":3.0,"device":"d","source":"gps","lat":1,"lon":2,"hacc":3,"sats":7.0}"#)
        XCTAssertEqual(message?.envelope.seq, 3)
        guard case .location(let location)? = message?.body else { return XCTFail("not a location") }
        XCTAssertEqual(location.sats, 7)
    }
}
