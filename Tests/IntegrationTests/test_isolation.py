"""Isolation between clients on a real CURVE bus with real pyzmq clients: each app sees its own
regions and authorization, a device scope narrows what a client sees and a provider publishes,
and only services publish health and errors (docs/security.md, the topic table)."""
import json
import subprocess
import time

import pytest
import zmq

from conftest import bin_dir, envelope
from curve_support import CurveBus, drain, location, publish_until, send, wait_for

ALWAYS = {"always": "Warns you at home", "whenInUse": "Shows your position"}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    directory = tmp_path_factory.mktemp("isolation")
    bus = CurveBus(directory, [
        {"name": "alice", "manifest": ALWAYS},
        {"name": "bob", "manifest": ALWAYS},
        {"name": "nd", "manifest": ALWAYS},
        {"name": "app", "manifest": ALWAYS},
        {"name": "app2", "manifest": ALWAYS},
        {"name": "vans", "manifest": ALWAYS, "devices": ["van-*"]},
        {"name": "gps0", "roles": ["provider"], "devices": ["gps0"]},
        {"name": "ops", "roles": ["admin"]},
    ])
    for client in ("alice", "bob", "app", "vans"):
        assert bus.auth("grant", client, "always").returncode == 0
    bus.start("locus-geofence", "--debounce", "0", "--min-radius", "50")
    watcher = bus.local_socket(zmq.SUB, "health.geofence")
    assert watcher.poll(15_000), "locus-geofence did not start"
    watcher.close(0)
    yield bus
    bus.stop()


def others(messages, *owners):
    return [(t, b) for t, b in messages if any(t in (f"region.state.{o}", f"region.event.{o}", f"auth.status.{o}",
                                                     f"auth.pending.{o}") for o in owners)]


def region_add(owner, region_id, lat):
    return envelope("region.add", owner=owner, region={"id": region_id, "shape": {
        "type": "Circle", "center": [121.47, lat], "radius": 200}})


def test_owners_receive_only_their_own_regions_and_events(fleet):
    seen = {name: [] for name in ("alice", "bob", "nd")}
    subs = {name: fleet.curve_socket(zmq.SUB, name, "") for name in seen}
    time.sleep(0.5)  # subscriptions of "" expand into thousands of grants; let them land
    pubs = {name: fleet.publisher(name) for name in ("alice", "bob")}
    for name, lat in (("alice", 31.200), ("bob", 31.210)):
        add = region_add(name, f"home-{name}", lat)
        send(pubs[name], "region.cmd", add)
        wait_for(subs[name], lambda t, b, add=add: t == f"region.state.{name}" and b.get("re") == add["id"]
                 and b["type"] == "region.added", seen=seen[name])
    local = fleet.publisher()
    entered = set()
    t0 = time.time()
    for step in range(80):
        send(local, "location.fused.car", dict(location("car", 31.195 + step * 0.0003), t=t0 + step))
        for name in ("alice", "bob"):
            while subs[name].poll(0):
                topic, body = subs[name].recv_multipart()
                seen[name].append((topic.decode(), json.loads(body)))
        entered = {n for n in ("alice", "bob") if any(t == f"region.event.{n}" and b["event"] == "enter" for t, b in seen[n])}
        if entered == {"alice", "bob"}:
            break
        time.sleep(0.02)
    for name in seen:
        seen[name] += drain(subs[name], 1.0)
    assert any(t == "region.event.alice" and b["event"] == "enter" for t, b in seen["alice"]), "alice's own enter arrives"
    assert any(t == "region.event.bob" and b["event"] == "enter" for t, b in seen["bob"]), "bob's own enter arrives"
    assert others(seen["alice"], "bob") == [], "alice receives 0 of bob's messages"
    assert others(seen["bob"], "alice") == [], "bob receives 0 of alice's messages"
    assert [t for t, _ in seen["nd"] if t.startswith("region.")] == [], "notDetermined: no region topic at all"
    # Replays from the last-value cache follow the same rule.
    late = {name: fleet.curve_socket(zmq.SUB, name, "region.state.", "auth.status.") for name in ("alice", "bob", "nd")}
    replayed = {name: drain(sock, 1.5) for name, sock in late.items()}
    assert any(t == "region.state.alice" for t, _ in replayed["alice"])
    assert others(replayed["alice"], "bob", "nd") == [] and others(replayed["bob"], "alice", "nd") == []
    assert [t for t, _ in replayed["nd"] if t.startswith("region.")] == []
    assert all(t.endswith(".nd") for t, _ in replayed["nd"]), "nd sees only its own status"


def test_an_id_that_extends_an_apps_name_never_reaches_it(fleet):
    assert "client 'app2'" in fleet.log_path.read_text(), "app2 starts with app: its entry is left out, and said"
    app = fleet.curve_socket(zmq.SUB, "app", "")
    errors = fleet.local_socket(zmq.SUB, "error.bus")
    time.sleep(0.5)
    local = fleet.publisher()
    add = region_add("app2", "x", 31.3)
    send(local, "region.cmd", add)
    _, report = wait_for(errors, lambda t, b: b.get("ref") == add["id"])
    assert report["code"] == "ownerConflict" and "app" in report["message"]
    for index in range(50):
        send(local, "region.state.app2", envelope("region.list", owner="app2", regions=[], re=f"r{index}"))
        send(local, "region.event.app2", envelope("region.event", owner="app2", regionId="x", device="car",
                                                   event="enter", state="inside", cause="fix",
                                                   location=location("car", 31.3)))
    send(local, "region.state.app", envelope("region.list", owner="app", regions=[], re="marker"))
    received = []
    wait_for(app, lambda t, b: b.get("re") == "marker", timeout=10, seen=received)
    assert [t for t, _ in received if "app2" in t] == [], "app receives none of app2's topics"


def test_a_van_scope_receives_no_truck_across_ten_thousand_messages(fleet):
    vans = fleet.curve_socket(zmq.SUB, "vans", "location.", "motion.", "visit.")
    local = fleet.publisher()
    assert publish_until(local, vans, "location.fused.van-1", lambda: location("van-1", 31.2),
                         lambda t, b: t == "location.fused.van-1")
    for index in range(5000):
        send(local, "location.fused.truck-7", location("truck-7", 31.0 + index * 1e-6))
        send(local, "location.fused.van-3", location("van-3", 31.0 + index * 1e-6))
        if index % 1000 == 0:
            send(local, "motion.truck-7", envelope("motion", device="truck-7", activity="automotive", confidence="high"))
            time.sleep(0.01)
    marker = location("van-9", 31.25)
    send(local, "location.fused.van-9", marker)
    received = []
    wait_for(vans, lambda t, b: b["id"] == marker["id"], timeout=30, seen=received)
    assert [t for t, _ in received if "truck-7" in t] == [], "no truck-7 message reaches a van-* scope"
    assert sum(1 for t, _ in received if t == "location.fused.van-3") > 4000, "its own devices do arrive"


def test_a_scoped_provider_cannot_publish_for_another_device(fleet):
    watcher = fleet.local_socket(zmq.SUB, "location.raw.", "error.bus")
    gps = fleet.publisher("gps0")
    assert publish_until(gps, watcher, "location.raw.gps0", lambda: location("gps0", 31.2),
                         lambda t, b: t == "location.raw.gps0")
    time.sleep(1.1)  # the bus reports at most one refusal a second
    send(gps, "location.raw.truck-7", location("truck-7", 1.0))
    topic, body = wait_for(watcher, lambda t, b: t in ("error.bus", "location.raw.truck-7"))
    assert topic == "error.bus" and body["code"] == "notAuthorized" and "scope" in body["message"], body
    assert not any(t == "location.raw.truck-7" for t, _ in drain(watcher, 0.5))


def test_a_forged_service_health_from_an_app_is_refused(fleet):
    watcher = fleet.local_socket(zmq.SUB, "health.geofence", "error.bus")
    alice = fleet.publisher("alice")
    time.sleep(1.1)
    forged = envelope("health", service="geofence", state="ok", counters={"received": 1})
    send(alice, "health.geofence", forged)
    topic, body = wait_for(watcher, lambda t, b: t == "error.bus" or b["id"] == forged["id"])
    assert topic == "error.bus" and body["code"] == "forged" and "alice" in body["message"], body
    assert not any(b["id"] == forged["id"] for _, b in drain(watcher, 1.0))


def test_doctor_says_who_sent_each_health(fleet):
    gps = fleet.publisher("gps0")
    watcher = fleet.local_socket(zmq.SUB, "health.bus")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        send(gps, "health.provider", envelope("health", service="provider", state="ok", counters={"sent": 1}))
        if watcher.poll(300):
            _, body = watcher.recv_multipart()
            if "provider=gps0" in json.loads(body).get("detail", {}).get("senders", ""):
                break
    else:
        raise AssertionError("the bus never named gps0 as the sender of health.provider")
    doctor = subprocess.run([str(bin_dir() / "locus"), "doctor", "--wait", "1"], env=fleet.env,
                            capture_output=True, text=True, timeout=30)
    lines = doctor.stdout.splitlines()
    assert any(line.startswith("ok: provider:") and line.endswith("(from gps0)") for line in lines), doctor.stdout
    assert any(line.startswith("ok: geofence:") and line.endswith("(from local)") for line in lines), doctor.stdout
