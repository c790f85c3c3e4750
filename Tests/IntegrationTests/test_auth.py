"""Authorization at the bus: real pyzmq clients holding CURVE keys against a real locus-bus over tcp."""
import os
import time

import pytest
import zmq

from conftest import envelope
from curve_support import CurveBus, drain, location, publish_until, send, wait_for

DEFAULT_MANIFEST = {"whenInUse": "Shows your position on the map",
                    "temporaryFull": {"navigation": "Turn-by-turn directions"}}


def make_curve_bus(directory, manifest=None):
    bus = CurveBus(directory, [
        {"name": "app", "manifest": manifest or DEFAULT_MANIFEST},
        {"name": "gps", "roles": ["provider"]},
        {"name": "admin", "roles": ["admin"]},
    ], extra_keys=("stranger",))
    assert oct(os.stat(directory / "app.key").st_mode & 0o777) == "0o600"
    return bus


@pytest.fixture
def curve_bus(runtime_dir):
    instance = make_curve_bus(runtime_dir)
    yield instance
    instance.stop()


def test_unknown_key_receives_nothing_and_cannot_publish(curve_bus):
    stranger_sub = curve_bus.curve_socket(zmq.SUB, "stranger", "")
    stranger_pub = curve_bus.context.socket(zmq.PUB)
    stranger_pub.curve_serverkey = curve_bus.keys["bus"][0]
    stranger_pub.curve_publickey, stranger_pub.curve_secretkey = curve_bus.keys["stranger"]
    stranger_pub.connect(curve_bus.pub)
    watcher = curve_bus.local_socket(zmq.SUB, "location.raw.spoof", "location.fused.")
    local = curve_bus.publisher()
    for index in range(300):
        send(local, "location.fused.truck-7", location("truck-7", 31.0 + index * 1e-4))
        send(stranger_pub, "location.raw.spoof", location("spoof", 10.0))
        time.sleep(0.002)
    seen = drain(watcher, 1.0)
    assert any(topic == "location.fused.truck-7" for topic, _ in seen), "the local watcher sees the real stream"
    assert not any(topic == "location.raw.spoof" for topic, _ in seen), "an unknown key cannot publish"
    assert drain(stranger_sub, 0.5) == [], "an unknown key receives nothing"


def test_reduced_client_receives_only_approx_and_denied_nothing(curve_bus):
    assert curve_bus.auth("grant", "app", "whenInUse", "--accuracy", "reduced").returncode == 0
    app = curve_bus.curve_socket(zmq.SUB, "app", "", "location.")
    local = curve_bus.publisher()
    assert publish_until(local, app, "location.approx.truck-7", lambda: location("truck-7", 31.2),
                         lambda topic, body: topic.startswith("location.approx."))
    for index in range(5000):
        send(local, "location.fused.truck-7", location("truck-7", 31.0 + index * 1e-6))
        send(local, "location.approx.truck-7", location("truck-7", 31.2))
    send(local, "visit.truck-7", envelope("visit", device="truck-7", lat=31.2, lon=121.4, hacc=50, arrival=1.0))
    marker = location("truck-7", 31.25)
    send(local, "location.approx.truck-7", marker)
    received = []
    wait_for(app, lambda topic, body: received.append((topic, body)) or body["id"] == marker["id"], timeout=20)
    location_topics = [topic for topic, _ in received if topic.startswith(("location.", "visit."))]
    assert len(location_topics) >= 1000
    assert all(topic.startswith("location.approx.") for topic in location_topics), "0 precise messages"

    assert curve_bus.auth("deny", "app").returncode == 0
    denied = curve_bus.curve_socket(zmq.SUB, "app", "")
    time.sleep(0.3)
    for _ in range(200):
        send(local, "location.approx.truck-7", location("truck-7", 31.2))
        send(local, "location.fused.truck-7", location("truck-7", 31.2))
    leaked = [t for t, _ in drain(denied, 1.0) if t.startswith(("location.", "visit.", "region.event."))]
    assert leaked == [], "a denied client receives no location"


def test_revocation_takes_effect_within_a_second(curve_bus):
    assert curve_bus.auth("grant", "app", "whenInUse", "--accuracy", "full").returncode == 0
    app = curve_bus.curve_socket(zmq.SUB, "app", "location.fused.")
    local = curve_bus.publisher()
    assert publish_until(local, app, "location.fused.truck-7", lambda: location("truck-7", 31.2),
                         lambda topic, body: topic == "location.fused.truck-7")
    revoked_at = time.monotonic()
    assert curve_bus.auth("revoke", "app").returncode == 0
    last_seen = revoked_at
    deadline = revoked_at + 3
    while time.monotonic() < deadline:
        send(local, "location.fused.truck-7", location("truck-7", 31.3))
        if app.poll(5):
            app.recv_multipart()
            last_seen = time.monotonic()
    assert last_seen - revoked_at < 1.0, f"fixes still arrived {last_seen - revoked_at:.2f} s after revocation"


def test_non_provider_raw_publish_is_dropped_and_reported(curve_bus):
    watcher = curve_bus.local_socket(zmq.SUB, "location.raw.", "error.bus")
    app_pub = curve_bus.publisher("app")
    gps_pub = curve_bus.publisher("gps")
    assert publish_until(gps_pub, watcher, "location.raw.gps0", lambda: location("gps0", 31.2),
                         lambda topic, body: topic == "location.raw.gps0")
    send(app_pub, "location.raw.fake", location("fake", 1.0))
    topic, body = wait_for(watcher, lambda topic, body: topic == "error.bus" or topic == "location.raw.fake")
    assert topic == "error.bus" and body["code"] == "notAuthorized" and "provider" in body["message"]


def test_forged_status_and_bad_requests_change_nothing(curve_bus):
    watcher = curve_bus.local_socket(zmq.SUB, "auth.status.app", "error.bus")
    app_pub = curve_bus.publisher("app")
    send(app_pub, "auth.status.app", envelope("auth.status", client="app", status="always", accuracy="full"))
    topic, body = wait_for(watcher, lambda topic, body: topic == "error.bus")
    assert body["code"] == "forged"
    send(app_pub, "auth.cmd", envelope("auth.request", client="app", level="always"))
    topic, body = wait_for(watcher, lambda topic, body: topic == "error.bus" and body.get("ref"))
    assert body["code"] == "missingUsageDescription"
    send(app_pub, "auth.cmd", envelope("auth.request", client="app", level="temporaryFull", purpose="spying"))
    topic, body = wait_for(watcher, lambda topic, body: topic == "error.bus" and body.get("ref"))
    assert body["code"] in ("unknownPurposeKey", "notAuthorized")
    send(app_pub, "auth.cmd", envelope("auth.set", client="app", status="always", accuracy="full"))
    topic, body = wait_for(watcher, lambda topic, body: topic == "error.bus" and body.get("ref"))
    assert body["code"] == "notAuthorized"
    codes = []
    for _ in range(20):
        send(app_pub, "auth.cmd", envelope("auth.request", client="app", level="whenInUse"))
    wait_for(watcher, lambda topic, body: codes.append(body.get("code")) or body.get("code") == "rateLimited")
    status = curve_bus.auth("status", "app")
    assert '"status":"always"' not in status.stdout


def test_request_grant_and_region_rules(curve_bus):
    status = curve_bus.local_socket(zmq.SUB, "auth.status.app", "auth.pending.app", "region.state.app")
    app_pub = curve_bus.publisher("app")
    send(app_pub, "auth.cmd", envelope("auth.request", client="app", level="whenInUse"))
    wait_for(status, lambda topic, body: topic == "auth.pending.app" and body["requests"])
    pending = curve_bus.auth("pending")
    assert "auth.pending.app" in pending.stdout and "Shows your position" in pending.stdout
    assert curve_bus.auth("grant", "app", "whenInUse").returncode == 0
    wait_for(status, lambda topic, body: topic == "auth.status.app" and body["status"] == "whenInUse")
    add = envelope("region.add", owner="app", region={"id": "home", "shape": {
        "type": "Circle", "center": [121.47, 31.23], "radius": 200}})
    send(app_pub, "region.cmd", add)
    topic, body = wait_for(status, lambda topic, body: topic == "region.state.app")
    assert body["type"] == "region.failed" and body["code"] == "notAuthorized" and body["re"] == add["id"]


def test_temporary_full_accuracy_ends_with_the_session(curve_bus):
    assert curve_bus.auth("grant", "app", "whenInUse", "--accuracy", "reduced").returncode == 0
    app = curve_bus.curve_socket(zmq.SUB, "app", "location.")
    local = curve_bus.publisher()
    assert publish_until(local, app, "location.approx.truck-7", lambda: location("truck-7", 31.2),
                         lambda topic, body: topic.startswith("location.approx."))
    assert curve_bus.auth("grant", "app", "temporaryFull", "--purpose", "navigation").returncode == 0
    assert publish_until(local, app, "location.fused.truck-7", lambda: location("truck-7", 31.2),
                         lambda topic, body: topic == "location.fused.truck-7"), "temporary full reaches the session"
    watcher = curve_bus.local_socket(zmq.SUB, "auth.status.app")
    app.close(0)
    topic, body = wait_for(watcher, lambda topic, body: "temporaryFull" not in body, timeout=10)
    assert body["accuracy"] == "reduced"
    again = curve_bus.curve_socket(zmq.SUB, "app", "location.")
    for _ in range(300):
        send(local, "location.fused.truck-7", location("truck-7", 31.2))
        send(local, "location.approx.truck-7", location("truck-7", 31.2))
    topics = {t for t, _ in drain(again, 1.0)}
    assert "location.fused.truck-7" not in topics and "location.approx.truck-7" in topics
