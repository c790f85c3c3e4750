"""docs/security.md, "Who publishes and who receives": every row of the table is a test with
real CURVE clients against a real bus. The test reads the table itself, so the document and
the bus cannot drift apart: for each row it publishes the sample topic (or makes the bus
publish it) and checks which receivers get it, then tries to publish it as a service, an app
and a scoped provider and checks which attempts the bus forwards."""
import json
import re
import time
import uuid

import pytest
import zmq

from conftest import REPO, envelope
from curve_support import CurveBus, location, send

COLUMNS = ["service", "admin", "full", "reduced", "none", "scoped"]
# The client behind each column (the service column is the local ipc identity).
NAMES = {"service": "zed", "admin": "ops", "full": "alice", "reduced": "red", "none": "nd", "scoped": "vans"}
PUBLISHERS = {"service": None, "app": "alice", "provider": "gps"}
MARKER_TOPIC = {"service": "health.marker", "app": "notify.request", "provider": "health.provider"}
# How the bus is made to publish a client's auth.status/auth.pending: its current decision, again.
DECISIONS = {"alice": ["grant", "alice", "always"], "vans": ["grant", "vans", "always"],
             "red": ["grant", "red", "whenInUse", "--accuracy", "reduced"], "nd": ["revoke", "nd"],
             "ops": ["revoke", "ops"], "zed": ["revoke", "zed"]}


def table_rows():
    text = (REPO / "docs" / "security.md").read_text()
    section = text.split("## Who publishes and who receives", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        assert len(cells) == 2 + len(COLUMNS), line
        topic = re.search(r"`([^`]+)`", cells[0]).group(1)
        outside = re.sub(r"\([^)]*\)", "", cells[1])
        publishers = {word for word in ("service", "app", "provider", "bus") if re.search(rf"\b{word}\b", outside)}
        expect = {column: cell == "✓" for column, cell in zip(COLUMNS, cells[2:])}
        assert all(cell in ("✓", "—") for cell in cells[2:]), line
        rows.append(pytest.param(topic, cells[0], publishers, expect, id=cells[0].replace("`", "")))
    return rows


ROWS = table_rows()


def concrete(topic, own):
    return topic.replace("<own>", own).replace("<other>", "zed")


def body_for(topic, note, owner):
    """A body of the family's type (the bus decodes region commands and scoped owners' events)."""
    device = "truck-7" if "truck-7" in topic or "truck-7" in note else "van-1"
    if topic.startswith(("location.", "visit.", "motion.", "control.")):
        device = topic.split(".")[-1]
    if topic.startswith("location."):
        return location(device, 31.2)
    if topic.startswith("visit."):
        return envelope("visit", device=device, lat=31.2, lon=121.4, hacc=50, arrival=1.0)
    if topic.startswith("motion."):
        return envelope("motion", device=device, activity="automotive", confidence="high")
    if topic.startswith("control."):
        return envelope("control", device=device, paused=False)
    if topic == "region.cmd":
        return envelope("region.list", owner=owner)
    if topic.startswith("region.state."):
        return envelope("region.list", owner=owner, regions=[], re="table")
    if topic.startswith("region.event."):
        return envelope("region.event", owner=owner, regionId="depot", device=device, event="enter", state="inside",
                        cause="crossing", location={"lat": 31.2, "lon": 121.4, "hacc": 5, "t": time.time()})
    if topic.startswith("notify."):
        return envelope("notification", kind="enter", title="t", body="b")
    return envelope("health", service=topic.split(".", 1)[-1], state="ok")


@pytest.fixture(scope="module")
def table_bus(tmp_path_factory):
    directory = tmp_path_factory.mktemp("table")
    manifest = {"always": "Geofences", "whenInUse": "Map"}
    bus = CurveBus(directory, [
        {"name": "ops", "roles": ["admin"]},
        {"name": "alice", "manifest": manifest},
        {"name": "red", "manifest": manifest},
        {"name": "nd", "manifest": manifest},
        {"name": "vans", "manifest": manifest, "devices": ["van-*"]},
        {"name": "gps", "roles": ["provider"], "devices": ["van-*"]},
        {"name": "zed", "manifest": manifest},
    ], extra_keys=())
    for command in DECISIONS.values():
        assert bus.auth(*command).returncode == 0, command
    bus.receivers = {column: (bus.local_socket(zmq.SUB, "") if column == "service"
                              else bus.curve_socket(zmq.SUB, NAMES[column], "")) for column in COLUMNS}
    bus.publishers = {kind: bus.publisher(who) for kind, who in PUBLISHERS.items()}
    bus.watcher = bus.local_socket(zmq.SUB, "")
    time.sleep(0.5)
    settle(bus)
    yield bus
    bus.stop()


def settle(bus):
    """Publishes a marker every receiver may see and drains each one up to it; returns what each got."""
    marker = envelope("health", service="marker", state="ok")
    send(bus.publishers["service"], "health.marker", marker)
    got = {}
    for column, sock in bus.receivers.items():
        got[column] = until(sock, lambda topic, body: body.get("id") == marker["id"])
    return got


def until(sock, predicate, timeout=15.0):
    received = []
    deadline = time.monotonic() + timeout
    while (remaining := deadline - time.monotonic()) > 0:
        if sock.poll(int(remaining * 1000) + 1):
            topic, raw = sock.recv_multipart()
            body = json.loads(raw)
            received.append((topic.decode(), body))
            if predicate(topic.decode(), body):
                return received
    raise AssertionError("marker did not arrive in time")


@pytest.mark.parametrize("topic,note,publishers,expect", ROWS)
def test_row(table_bus, topic, note, publishers, expect):
    started = time.time()
    variants = {column: concrete(topic, NAMES[column]) for column in COLUMNS}
    if publishers == {"bus"}:
        for name in sorted({NAMES[c] for c in COLUMNS} | {"zed"}):
            assert table_bus.auth(*DECISIONS[name]).returncode == 0
        ids = None
    else:
        ids = set()
        for variant in sorted(set(variants.values())):
            owner = variant.rsplit(".", 1)[-1]
            body = body_for(variant, note, owner)
            ids.add(body["id"])
            send(table_bus.publishers["service"], variant, body)
    got = settle(table_bus)
    for column in COLUMNS:
        received = any(t == variants[column] and (b.get("id") in ids if ids is not None else b.get("t", 0) >= started - 1)
                       for t, b in got[column])
        assert received == expect[column], f"{column} ({NAMES[column]}) on {variants[column]}: received={received}"
    # Publishing: the bus forwards an attempt only from those the row names.
    for kind, name in PUBLISHERS.items():
        attempt_topic = concrete(topic, name or "zed")
        attempt = body_for(attempt_topic, note, name or "zed")
        marker = envelope("health", service="provider", state="ok") if kind == "provider" else \
            envelope("notification", kind="request", title="m", body=str(uuid.uuid4())) if kind == "app" else \
            envelope("health", service="marker", state="ok")
        send(table_bus.publishers[kind], attempt_topic, attempt)
        send(table_bus.publishers[kind], MARKER_TOPIC[kind], marker)
        seen = until(table_bus.watcher, lambda t, b: b.get("id") == marker["id"])
        forwarded = any(b.get("id") == attempt["id"] for _, b in seen)
        assert forwarded == (kind in publishers), f"{kind} publishing {attempt_topic}: forwarded={forwarded}"
