"""Authorization at the bus: real pyzmq clients holding CURVE keys against a real locus-bus over tcp."""
import json
import os
import socket
import subprocess
import time

import pytest
import zmq

from conftest import bin_dir, envelope


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CurveBus:
    """locus-bus with CURVE on tcp, an allow-list and a local ipc pair for the admin CLI."""

    def __init__(self, directory, manifest=None):
        self.directory = directory
        self.context = zmq.Context()
        self.keys = {}
        for name in ("bus", "app", "gps", "admin", "stranger"):
            result = subprocess.run([str(bin_dir() / "locus"), "keys", "gen", name, "--dir", str(directory)],
                                    capture_output=True, text=True, check=True)
            self.keys[name] = self.read_pair(directory / f"{name}.key")
        assert oct(os.stat(directory / "app.key").st_mode & 0o777) == "0o600"
        manifest = manifest or {"whenInUse": "Shows your position on the map",
                                "temporaryFull": {"navigation": "Turn-by-turn directions"}}
        allow = {"clients": [
            {"name": "app", "publicKey": self.keys["app"][0].decode(), "manifest": manifest},
            {"name": "gps", "publicKey": self.keys["gps"][0].decode(), "roles": ["provider"]},
            {"name": "admin", "publicKey": self.keys["admin"][0].decode(), "roles": ["admin"]},
        ]}
        (directory / "allow.json").write_text(json.dumps(allow))
        port_pub, port_sub = free_port(), free_port()
        self.pub, self.sub = f"tcp://127.0.0.1:{port_pub}", f"tcp://127.0.0.1:{port_sub}"
        self.local_pub, self.local_sub = f"ipc://{directory}/pub", f"ipc://{directory}/sub"
        self.env = dict(os.environ, LOCUS_PUB=self.local_pub, LOCUS_SUB=self.local_sub)
        self.process = subprocess.Popen(
            [str(bin_dir() / "locus-bus"), "--pub", self.pub, "--sub", self.sub,
             "--local-pub", self.local_pub, "--local-sub", self.local_sub,
             "--allow", str(directory / "allow.json"), "--curve-secret", str(directory / "bus.key"),
             "--state", str(directory / "state"), "--health-interval", "0.5"],
            env=self.env, stderr=subprocess.PIPE, text=True)
        probe = self.local_socket(zmq.SUB, "health.bus")
        assert probe.poll(10_000), "locus-bus did not start"
        probe.close(0)

    @staticmethod
    def read_pair(path):
        fields = dict(line.split(" = ") for line in path.read_text().splitlines() if " = " in line)
        return fields["public-key"].encode(), fields["secret-key"].encode()

    def local_socket(self, kind, *prefixes):
        sock = self.context.socket(kind)
        sock.connect(self.local_sub if kind == zmq.SUB else self.local_pub)
        for prefix in prefixes:
            sock.setsockopt_string(zmq.SUBSCRIBE, prefix)
        return sock

    def curve_socket(self, kind, who, *prefixes):
        sock = self.context.socket(kind)
        sock.curve_serverkey = self.keys["bus"][0]
        sock.curve_publickey, sock.curve_secretkey = self.keys[who]
        sock.connect(self.sub if kind == zmq.SUB else self.pub)
        for prefix in prefixes:
            sock.setsockopt_string(zmq.SUBSCRIBE, prefix)
        return sock

    def publisher(self, who=None):
        sock = self.context.socket(zmq.XPUB)
        if who:
            sock.curve_serverkey = self.keys["bus"][0]
            sock.curve_publickey, sock.curve_secretkey = self.keys[who]
        sock.connect(self.pub if who else self.local_pub)
        assert sock.poll(10_000), "the bus never subscribed to the publisher"
        sock.recv()
        return sock

    def auth(self, *args):
        return subprocess.run([str(bin_dir() / "locus"), "auth", *args], env=self.env,
                              capture_output=True, text=True, timeout=20)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=5)
        self.context.destroy(linger=0)


@pytest.fixture
def curve_bus(runtime_dir):
    instance = CurveBus(runtime_dir)
    yield instance
    instance.stop()


def location(device, lat):
    return envelope("location", device=device, source="gps", lat=lat, lon=121.47, hacc=5.0)


def send(sock, topic, body):
    sock.send_multipart([topic.encode(), json.dumps(body).encode()])


def drain(sock, seconds):
    """Every message that arrives within `seconds`."""
    got = []
    deadline = time.monotonic() + seconds
    while (remaining := deadline - time.monotonic()) > 0:
        if sock.poll(int(remaining * 1000) + 1):
            topic, body = sock.recv_multipart()
            got.append((topic.decode(), json.loads(body)))
    return got


def wait_for(sock, predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while (remaining := deadline - time.monotonic()) > 0:
        if sock.poll(int(remaining * 1000) + 1):
            topic, body = sock.recv_multipart()
            message = (topic.decode(), json.loads(body))
            if predicate(*message):
                return message
    raise AssertionError("expected message did not arrive in time")


def publish_until(pub, sub, topic, make, predicate, timeout=10.0):
    """Publishes fresh messages until the subscriber sees one matching predicate."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        send(pub, topic, make())
        if sub.poll(50):
            t, body = sub.recv_multipart()
            if predicate(t.decode(), json.loads(body)):
                return True
    return False


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
