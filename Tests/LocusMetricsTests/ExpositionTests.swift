import LocusNet
import LocusProtocol
import LocusService
import XCTest
@testable import LocusMetrics

/// The exporter's logic: messages in, Prometheus text out.
final class ExpositionTests: XCTestCase {
    func testTextFormatEscapesSortsAndGroupsFamilies() {
        var exposition = Exposition()
        exposition.add("locus_b_total", .counter, help: "B \\ with\nnewline", labels: [("z", "1"), ("a", "quote\" back\\ nl\n")], value: 3)
        exposition.add("locus_a", .gauge, help: "A", value: 0.25)
        exposition.add("locus_b_total", .counter, help: "ignored second help", labels: [("a", "x"), ("z", "2")], value: 1)
        exposition.add("locus_a", .counter, help: "a type clash is left out", value: 9)
        exposition.add("bad name-1", .gauge, help: "h", labels: [("9bad", "v")], value: .infinity)
        XCTAssertEqual(exposition.text, """
            # HELP bad_name_1 h
            # TYPE bad_name_1 gauge
            bad_name_1{_bad="v"} +Inf
            # HELP locus_a A
            # TYPE locus_a gauge
            locus_a 0.25
            # HELP locus_b_total B \\\\ with\\nnewline
            # TYPE locus_b_total counter
            locus_b_total{a="quote\\" back\\\\ nl\\n",z="1"} 3
            locus_b_total{a="x",z="2"} 1

            """)
    }

    func testHealthCountersFollowPrometheusNaming() {
        typealias C = HealthCounterCatalog
        XCTAssertEqual(C.mapping(service: "fusion", counter: "sent").name, "locus_messages_sent_total")
        XCTAssertEqual(C.mapping(service: "bus", counter: "dropped").name, "locus_bus_dropped_total")
        let devices = C.mapping(service: "fusion", counter: "devices")
        XCTAssertEqual(devices.name, "locus_fusion_devices")
        XCTAssertEqual(devices.type, .gauge)
        let served = C.mapping(service: "gpsd", counter: "fixesServed")
        XCTAssertEqual(served.name, "locus_gpsd_fixes_served_total")
        XCTAssertEqual(served.type, .counter)
        let refused = C.mapping(service: "provider", counter: "source.refused.outOfRange")
        XCTAssertEqual(refused.name, "locus_provider_source_refused_total")
        XCTAssertTrue(refused.labels.elementsEqual([("kind", "outOfRange")], by: { $0 == $1 }))
        let backlog = C.mapping(service: "notifier", counter: "backlog.webhook-2")
        XCTAssertEqual(backlog.name, "locus_notifier_outbox_backlog")
        XCTAssertEqual(backlog.type, .gauge)
        XCTAssertTrue(backlog.labels.elementsEqual([("sink", "webhook-2")], by: { $0 == $1 }))
        let lag = C.mapping(service: "geofence", counter: "lag.geofence-0")
        XCTAssertEqual(lag.name, "locus_consumer_lag_messages")
        XCTAssertEqual(lag.type, .gauge)
        let battery = C.mapping(service: "provider", counter: "source.battery.van-3")
        XCTAssertEqual(battery.name, "locus_device_battery_ratio")
        XCTAssertEqual(battery.scale, 0.01)
    }

    private func message(_ body: Body, t: Double, src: String = "test/main") -> Message {
        Message(body: body, id: UUID().uuidString, t: t, src: src)
    }

    func testMessagesInExpositionOut() {
        let board = MetricsBoard(maximumDevices: 2, staleAfterSeconds: 15)
        var logic = MetricsLogic(board: board)
        let now = 1_700_000_100.0
        let health = Health(service: "notifier", state: .degraded, uptime: 42,
                            counters: ["sent": 7, "received": 9, "delivered": 3, "backlog.webhook": 2, "lag.notifier-main": 5])
        _ = logic.receive(message(.health(health), t: now, src: "notifier/main"), topic: "health.notifier", now: now)
        for status: NotificationStatus in [.delivered, .delivered, .retrying, .failed] {
            let record = LocusProtocol.Notification(ref: "e", title: "t", body: "b", sink: "webhook", status: status)
            _ = logic.receive(message(.notification(record), t: now), topic: "notify.webhook", now: now)
        }
        let fix = FixRef(lat: 1, lon: 2, hacc: 5, t: now)
        let event = RegionEvent(owner: "app", regionId: "home", device: "van", event: .exit, state: .outside, cause: .crossing, location: fix)
        _ = logic.receive(message(.regionEvent(event), t: now), topic: "region.event.app", now: now)
        for (device, t) in [("a", now - 30), ("b", now - 3), ("c", now - 1)] {
            let location = Location(device: device, source: "fused", lat: 1, lon: 2, hacc: 8)
            _ = logic.receive(message(.location(location), t: t), topic: "location.fused.\(device)", now: now)
        }
        _ = logic.receive(message(.error(ErrorReport(code: "outOfRange", message: "m")), t: now), topic: "error.provider", now: now)

        let out = board.exposition(now: now + 1)
        let service = [("service", "notifier"), ("src", "notifier/main")]
        XCTAssertEqual(out.value("locus_service_up", service), 1)
        XCTAssertEqual(out.value("locus_service_state", service + [("state", "degraded")]), 1)
        XCTAssertEqual(out.value("locus_service_state", service + [("state", "ok")]), 0)
        XCTAssertEqual(out.value("locus_service_uptime_seconds", service), 42)
        XCTAssertEqual(out.value("locus_messages_sent_total", service), 7)
        XCTAssertEqual(out.value("locus_notifier_delivered_total", service), 3)
        XCTAssertEqual(out.value("locus_notifier_outbox_backlog", service + [("sink", "webhook")]), 2)
        XCTAssertEqual(out.value("locus_consumer_lag_messages", service + [("consumer", "notifier-main")]), 5)
        XCTAssertEqual(out.value("locus_notifications_total", [("sink", "webhook"), ("status", "delivered")]), 2)
        XCTAssertEqual(out.value("locus_notifications_total", [("sink", "webhook"), ("status", "retrying")]), 1)
        XCTAssertEqual(out.value("locus_notifications_total", [("sink", "webhook"), ("status", "suppressed")]), 0)
        XCTAssertEqual(out.value("locus_geofence_events_total", [("kind", "exit")]), 1)
        XCTAssertEqual(out.value("locus_geofence_events_total", [("kind", "enter")]), 0)
        XCTAssertNil(out.value("locus_fix_age_seconds", [("device", "a")]), "the oldest device left to stay within 2")
        XCTAssertEqual(out.value("locus_fix_age_seconds", [("device", "b")]), 4)
        XCTAssertEqual(out.value("locus_fix_horizontal_accuracy_meters", [("device", "c")]), 8)
        XCTAssertEqual(out.value("locus_errors_total", [("service", "provider"), ("code", "outOfRange")]), 1)
        XCTAssertEqual(out.value("locus_metrics_devices_evicted_total"), 1)
        XCTAssertEqual(board.exposition(now: now + 16).value("locus_service_up", service), 0, "stale after 15 s")
    }

    func testRouterServesMetricsLivenessAndReadiness() {
        let board = MetricsBoard()
        let router = MetricsRouter(board: board)
        func get(_ path: String, method: String = "GET") -> HTTPResponse {
            router.answer(HTTPRequest(head: HTTPRequestHead(method: method, target: path, version: "HTTP/1.1", headers: [:])), now: 100)
        }
        XCTAssertEqual(get("/healthz").status, 200)
        XCTAssertEqual(get("/readyz").status, 503, "nothing read from the bus yet")
        board.received(now: 95)
        XCTAssertEqual(get("/readyz").status, 200)
        let metrics = get("/metrics?x=1")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.headers.contains { $0 == ("Content-Type", Exposition.contentType) })
        XCTAssertTrue(String(decoding: metrics.body, as: UTF8.self).contains("# TYPE locus_geofence_events_total counter\n"))
        XCTAssertEqual(get("/metrics", method: "POST").status, 405)
        XCTAssertEqual(get("/other").status, 404)
    }
}
