import LocusMap
import LocusNet
import Foundation
import XCTest

final class MapRouterTests: XCTestCase {
    private func request(_ method: String, _ target: String, host: String? = "127.0.0.1:8470") -> HTTPRequestHead {
        HTTPRequestHead(method: method, target: target, version: "HTTP/1.1", headers: host.map { ["host": $0] } ?? [:])
    }

    private func status(_ decision: MapRouter.Decision) -> Int? {
        if case .respond(let response, _) = decision { return response.status }
        return nil
    }

    func testServesOnlyKnownPathsWithGet() {
        let router = MapRouter(configuration: MapConfiguration(subscribeEndpoint: "inproc://x"))
        XCTAssertEqual(status(router.decide(request("GET", "/"))), 200)
        XCTAssertEqual(status(router.decide(request("GET", "/map.js?v=1"))), 200)
        XCTAssertEqual(router.decide(request("GET", "/events")), .stream)
        XCTAssertEqual(status(router.decide(request("GET", "/map.js/../x"))), 404)
        XCTAssertEqual(status(router.decide(request("GET", "/favicon.ico"))), 404)
        XCTAssertEqual(status(router.decide(request("POST", "/"))), 405)
        XCTAssertEqual(status(router.decide(request("GET", "/" + String(repeating: "a", count: 2000)))), 414)
    }

    func testOnLoopbackAnswersOnlyLoopbackHostNames() {
        let router = MapRouter(configuration: MapConfiguration(subscribeEndpoint: "inproc://x"))
        for host in ["localhost", "localhost:8470", "127.0.0.1", "127.1.2.3:1", "[::1]:8470", "map.localhost"] {
            XCTAssertEqual(status(router.decide(request("GET", "/", host: host))), 200, host)
        }
        for host in ["evil.example", "evil.example:8470", "127.0.0.1.evil.example", "", "localhost:port"] {
            XCTAssertEqual(status(router.decide(request("GET", "/", host: host))), 421, host)
        }
        XCTAssertEqual(status(router.decide(request("GET", "/", host: nil))), 421)
    }

    func testConfigurationReachesThePageAndItsPolicy() throws {
        var configuration = MapConfiguration(subscribeEndpoint: "inproc://x")
        configuration.clientAccuracy = .reduced
        configuration.tileURLTemplate = "http://127.0.0.1:8080/{z}/{x}/{y}.png"
        let router = MapRouter(configuration: configuration)
        guard case .respond(let config, _) = router.decide(request("GET", "/config.json")) else { return XCTFail() }
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(config.body)) as? [String: String])
        XCTAssertEqual(object, ["clientAccuracy": "reduced", "tileURLTemplate": "http://127.0.0.1:8080/{z}/{x}/{y}.png"])
        let policy = config.headers.first { $0.0 == "Content-Security-Policy" }?.1 ?? ""
        XCTAssertTrue(policy.contains("img-src 'self' data: http://127.0.0.1:8080;"), policy)
    }

    func testTileTemplatesAreChecked() {
        XCTAssertNil(MapConfiguration.validateTileTemplate("https://tiles.example/{z}/{x}/{y}.png"))
        XCTAssertNotNil(MapConfiguration.validateTileTemplate("ftp://tiles/{z}/{x}/{y}"))
        XCTAssertNotNil(MapConfiguration.validateTileTemplate("http://tiles/{z}/{x}.png"))
        XCTAssertNotNil(MapConfiguration.validateTileTemplate("http://tiles/{z}/{x}/{y}\"><script>"))
    }

    func testListenAddresses() {
        XCTAssertEqual(ListenAddress(parsing: "127.0.0.1:8470"), ListenAddress(host: "127.0.0.1", port: 8470))
        XCTAssertEqual(ListenAddress(parsing: "localhost:0"), ListenAddress(host: "127.0.0.1", port: 0))
        XCTAssertEqual(ListenAddress(parsing: ":9000")?.isLoopback, true)
        XCTAssertEqual(ListenAddress(parsing: "0.0.0.0:80")?.isLoopback, false)
        XCTAssertNil(ListenAddress(parsing: "example.com:80"))
        XCTAssertNil(ListenAddress(parsing: "127.0.0.1:99999"))
    }
}
