import XCTest
@testable import LocusGpsd
import LocusProtocol

/// The conversation gpsd's clients expect, byte for byte: what they get on connect, for
/// each command, and as watchers when fixes arrive. The expected lines were checked
/// against gpsd 3.22 answering the same commands (docs/gpsd.md, "Compatibility").
final class GpsdHubTests: XCTestCase {
    private let watchReply = #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#

    private func hub(_ change: (inout GpsdConfiguration) -> Void = { _ in }) -> GpsdHub {
        GpsdHub(configuration: GpsdConfiguration().with { $0.revision = "locus-gpsd test"; change(&$0) })
    }

    func testVersionOnConnectAndOnRequest() {
        var hub = hub()
        let banner = GpsdHub.lines(to: 1, in: hub.connect(1, kind: .gpsd))
        let expected = #"{"class":"VERSION","release":"3.22","rev":"locus-gpsd test","proto_major":3,"proto_minor":14}"#
        XCTAssertEqual(banner, [expected])
        XCTAssertEqual(hub.ask(1, "?VERSION;"), [expected])
    }

    func testDevicesBeforeAndAfterTheFirstFix() {
        var hub = hub { $0.devices = ["car"] }
        _ = hub.connect(1, kind: .gpsd)
        XCTAssertEqual(hub.ask(1, "?DEVICES;"),
                       [#"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"locus://car","driver":"Locus","subtype":"fused"}]}"#])
        _ = hub.apply(.fix(fusedFix(), t: fixTime), now: fixTime + 0.1)
        XCTAssertEqual(hub.ask(1, "?DEVICES;"), [
            #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"locus://car","driver":"Locus","subtype":"fused","#
                + #""activated":"2026-05-14T09:30:01.350Z","flags":1}]}"#,
        ])
    }

    func testWatchRepliesWithDevicesThenWatchThenTheLatestFix() {
        var hub = hub()
        _ = hub.connect(1, kind: .gpsd)
        _ = hub.apply(.fix(fusedFix(), t: fixTime), now: fixTime)
        let lines = hub.ask(1, #"?WATCH={"enable":true,"json":true};"#)
        XCTAssertEqual(lines.count, 4)
        XCTAssertTrue(lines[0].hasPrefix(#"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"locus://car""#))
        XCTAssertEqual(lines[1], watchReply)
        XCTAssertTrue(lines[2].hasPrefix(#"{"class":"TPV","device":"locus://car","mode":3,"time":"2026-05-14T09:30:01.250Z","lat":31.230400000"#))
        XCTAssertTrue(lines[3].hasPrefix(#"{"class":"GST","#))
    }

    func testWatchKeepsJsonAndNmeaButResetsTheOtherMembersAsGpsdDoes() {
        var hub = hub()
        _ = hub.connect(1, kind: .gpsd)
        _ = hub.ask(1, #"?WATCH={"enable":true,"json":true,"scaled":true};"#)
        let nmea = hub.ask(1, #"?WATCH={"enable":true,"nmea":true};"#)
        XCTAssertEqual(nmea.last, #"{"class":"WATCH","enable":true,"json":true,"nmea":true,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#)
        let off = hub.ask(1, #"?WATCH={"enable":false};"#)
        XCTAssertEqual(off.last, #"{"class":"WATCH","enable":false,"json":true,"nmea":true,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#)
        // An object without "enable" enables, as gpsd's default is true.
        XCTAssertEqual(hub.ask(1, "?WATCH={}\n").last?.contains(#""enable":true"#), true)
    }

    func testWatchedFixesReachOnlyWatchersOfThatDevice() {
        var hub = hub()
        for client in 1...4 { _ = hub.connect(client, kind: .gpsd) }
        _ = hub.apply(.fix(fusedFix("car"), t: fixTime), now: fixTime)
        _ = hub.apply(.fix(fusedFix("van"), t: fixTime), now: fixTime)
        _ = hub.ask(1, #"?WATCH={"enable":true,"json":true};"#)
        _ = hub.ask(2, #"?WATCH={"enable":true,"json":true,"device":"locus://van"};"#)
        _ = hub.ask(3, #"?WATCH={"enable":true,"nmea":true};"#)
        // client 4 never watches
        let actions = hub.apply(.fix(fusedFix("car", lat: 31.25), t: fixTime + 1), now: fixTime + 1)
        let first = GpsdHub.lines(to: 1, in: actions)
        XCTAssertEqual(first.map { String($0.prefix(14)) }, [#"{"class":"TPV""#, #"{"class":"GST""#])
        XCTAssertTrue(first[0].contains(#""lat":31.250000000"#))
        XCTAssertEqual(GpsdHub.lines(to: 2, in: actions), [])
        XCTAssertEqual(GpsdHub.lines(to: 3, in: actions).map { String($0.prefix(6)) }, ["$GPRMC", "$GPGGA", "$GPGSA", "$GPGST"])
        XCTAssertEqual(GpsdHub.lines(to: 4, in: actions), [])
        XCTAssertEqual(hub.counters.tpvSent, 1)
        XCTAssertEqual(hub.counters.nmeaSent, 4)
        // Reports to watchers are bounded (a slow reader may be dropped); replies are not.
        XCTAssertTrue(actions.allSatisfy { if case .send(_, _, let bounded) = $0 { bounded } else { false } })
    }

    func testFirstFixOfADeviceSendsADeviceNoticeToJsonWatchers() {
        var hub = hub()
        _ = hub.connect(1, kind: .gpsd)
        _ = hub.ask(1, #"?WATCH={"enable":true,"json":true};"#)
        let first = GpsdHub.lines(to: 1, in: hub.apply(.fix(fusedFix(), t: fixTime), now: fixTime))
        XCTAssertEqual(first.first, #"{"class":"DEVICE","path":"locus://car","driver":"Locus","subtype":"fused","activated":"2026-05-14T09:30:01.250Z","flags":1}"#)
        let second = GpsdHub.lines(to: 1, in: hub.apply(.fix(fusedFix(), t: fixTime + 1), now: fixTime + 1))
        XCTAssertFalse(second.contains { $0.hasPrefix(#"{"class":"DEVICE""#) })
    }

    func testPollListsWatchedDevicesWithAFix() {
        var hub = hub { $0.devices = ["car", "van"] }
        _ = hub.connect(1, kind: .gpsd)
        _ = hub.apply(.fix(fusedFix("car"), t: fixTime), now: fixTime)
        // Not watching: nothing is active for this client, as with gpsd.
        XCTAssertEqual(hub.ask(1, "?POLL;", now: fixTime + 2),
                       [#"{"class":"POLL","time":"2026-05-14T09:30:03.250Z","active":0,"tpv":[],"gst":[],"sky":[]}"#])
        _ = hub.ask(1, #"?WATCH={"enable":true};"#)
        let poll = try! XCTUnwrap(hub.ask(1, "?POLL;", now: fixTime + 2).first)
        XCTAssertTrue(poll.hasPrefix(#"{"class":"POLL","time":"2026-05-14T09:30:03.250Z","active":1,"tpv":[{"class":"TPV","device":"locus://car","mode":3,"#))
        XCTAssertTrue(poll.hasSuffix(#"],"sky":[]}"#))
    }

    func testErrorsUseGpsdsWording() {
        var hub = hub { $0.devices = ["car", "van"] }
        _ = hub.connect(1, kind: .gpsd)
        XCTAssertEqual(hub.ask(1, "?FOO;"), [#"{"class":"ERROR","message":"Unrecognized request '?FOO;\n'"}"#])
        XCTAssertEqual(hub.ask(1, #"?WATCH={"enable":true,"device":"/dev/ttyUSB0"};"#),
                       [#"{"class":"ERROR","message":"No such device as /dev/ttyUSB0"}"#])
        XCTAssertEqual(hub.ask(1, #"?DEVICE={"path":"/dev/ttyUSB0"};"#), [#"{"class":"ERROR","message":"Can't open /dev/ttyUSB0."}"#])
        XCTAssertEqual(hub.ask(1, #"?DEVICE={"bps":9600};"#),
                       [#"{"class":"ERROR","message":"No path specified in DEVICE, but multiple devices are attached."}"#])
        let invalid = hub.ask(1, #"?WATCH={"enable":"yes"}"# + "\n")
        XCTAssertEqual(invalid.count, 3)
        XCTAssertEqual(invalid[0], #"{"class":"ERROR","message":"Invalid WATCH: \"enable\" must be true or false"}"#)
        XCTAssertTrue(invalid[1].hasPrefix(#"{"class":"DEVICES""#))
        XCTAssertTrue(invalid[2].hasPrefix(#"{"class":"WATCH""#))
        XCTAssertEqual(hub.counters.badRequests, 5)
    }

    func testBadRequestsAreReportedAtMostOncePerSecond() {
        var hub = hub()
        _ = hub.connect(1, kind: .gpsd)
        var problems = 0
        for step in 0..<30 {
            problems += hub.receive(1, Array("?FOO;\n".utf8), now: fixTime + Double(step) * 0.1).filter {
                if case .problem(let code, _) = $0 { return code == "badRequest" }
                return false
            }.count
        }
        XCTAssertEqual(problems, 3)  // at 0, 1.0 and 2.0 s
        XCTAssertEqual(hub.counters.badRequests, 30)
    }

    func testAnEndlessRequestIsAnsweredAndTheClientClosed() {
        var hub = hub { $0.maximumRequestBytes = 100 }
        _ = hub.connect(1, kind: .gpsd)
        let actions = hub.receive(1, Array(repeating: UInt8(ascii: "?"), count: 101), now: fixTime)
        XCTAssertEqual(GpsdHub.lines(to: 1, in: actions), [#"{"class":"ERROR","message":"request longer than 100 bytes"}"#])
        XCTAssertTrue(actions.contains { if case .close(1, _) = $0 { true } else { false } })
        XCTAssertEqual(hub.counters.oversizedRequests, 1)
        XCTAssertEqual(hub.counters.clients, 0)
    }

    func testNmeaStreamCarriesTheFirstDeviceOnlyAndIgnoresInput() {
        var hub = hub()
        XCTAssertEqual(hub.connect(7, kind: .nmeaStream), [])
        let car = hub.apply(.fix(fusedFix("car"), t: fixTime), now: fixTime)
        XCTAssertEqual(GpsdHub.lines(to: 7, in: car).count, 4)
        let van = hub.apply(.fix(fusedFix("van"), t: fixTime), now: fixTime)
        XCTAssertEqual(GpsdHub.lines(to: 7, in: van), [])
        XCTAssertEqual(hub.receive(7, Array("?VERSION;\n".utf8), now: fixTime), [])
        // A stream that connects later starts with the latest epoch.
        XCTAssertEqual(GpsdHub.lines(to: 8, in: hub.connect(8, kind: .nmeaStream)).first?.hasPrefix("$GPRMC"), true)
    }

    func testSatellitesBecomeSkyAndFeedGgaWhileFresh() {
        var hub = hub()
        _ = hub.connect(1, kind: .gpsd)
        _ = hub.apply(.fix(fusedFix(), t: fixTime), now: fixTime)
        _ = hub.ask(1, #"?WATCH={"enable":true,"json":true,"nmea":true};"#)
        let sky = GpsdHub.lines(to: 1, in: hub.apply(.satellites(device: "car", used: 9, hdop: 0.8, t: fixTime + 1), now: fixTime + 1))
        XCTAssertEqual(sky, [#"{"class":"SKY","device":"locus://car","time":"2026-05-14T09:30:02.250Z","hdop":0.80,"nSat":0,"uSat":9}"#])
        let fresh = GpsdHub.lines(to: 1, in: hub.apply(.fix(fusedFix(), t: fixTime + 1), now: fixTime + 1))
        XCTAssertTrue(fresh.contains { $0.hasPrefix("$GPGGA,093002.250,3113.8240000,N,12128.4220000,E,1,09,0.80,") })
        let stale = GpsdHub.lines(to: 1, in: hub.apply(.fix(fusedFix(hacc: 5.3384), t: fixTime + 30), now: fixTime + 30))
        // Satellites 29 s old describe another fix: GGA falls back to the HDOP derived from hacc.
        XCTAssertTrue(stale.contains { $0.hasPrefix("$GPGGA,093031.250,3113.8240000,N,12128.4220000,E,1,04,1.00,") })
    }

    func testSatellitesOfADeviceNotServedAreDropped() {
        var hub = hub()
        _ = hub.connect(1, kind: .gpsd)
        _ = hub.ask(1, #"?WATCH={"enable":true,"json":true};"#)
        XCTAssertEqual(hub.apply(.satellites(device: "car", used: 9, hdop: 0.8, t: fixTime), now: fixTime), [])
    }

    func testTableFullRefusesFurtherDevices() {
        var hub = hub { $0.maximumDevices = 2 }
        for device in ["a", "b", "c"] { _ = hub.apply(.fix(fusedFix(device), t: fixTime), now: fixTime) }
        XCTAssertEqual(hub.table.records.map(\.device), ["a", "b"])
        XCTAssertEqual(hub.counters.fixesRefused, 1)
    }
}
