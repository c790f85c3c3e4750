"""Event replay (docs/reliability.md, docs/protocol.md `bus.replay`): the bus keeps recent
events, a restarted notifier asks for what it missed, and every event is delivered once and
in order although some were published while no notifier was running."""
import json
import os
import signal
import subprocess
import time
import uuid

import pytest

from conftest import Bus, bin_dir, envelope, wait_until
from test_docs import errors


def region_event(index, t):
    return envelope("region.event", t=t, owner="app", regionId=f"r{index:02d}", device="car",
                    event="enter", state="inside", cause="crossing",
                    location={"lat": 31.0, "lon": 121.0, "hacc": 5.0, "t": t})


def publish(sock, topic, body):
    sock.send_multipart([topic.encode(), json.dumps(body).encode()])




def sink_lines(path):
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class Notifier:
    def __init__(self, bus, state, sink):
        self.process = subprocess.Popen(
            [str(bin_dir() / "locus-notifier"), "--state", str(state), "--sink", f"jsonl:{sink}",
             "--health-interval", "0.3", "--retry-initial", "0.05"],
            env=bus.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def wait_ready(self, bus, watcher):
        """Until this process's health shows it subscribed and past its replay (or fresh start)."""
        pid = str(self.process.pid)
        bus.wait_for(watcher, lambda topic, body: topic == "health.notifier"
                     and (body.get("detail") or {}).get("pid") == pid, timeout=20)


@pytest.fixture
def stack(runtime_dir):
    bus = Bus(runtime_dir)
    yield bus, runtime_dir
    bus.stop()


def test_events_published_while_the_notifier_is_killed_are_delivered_once_in_order(stack):
    bus, directory = stack
    state, sink = directory / "notifier", directory / "sink.jsonl"
    watcher = bus.subscriber("health.notifier", "bus.replayed.", "error.notifier")
    publisher = bus.publisher()
    notifier = Notifier(bus, state, sink)
    notifier.wait_ready(bus, watcher)
    t0 = 1_790_000_000.0
    events = [region_event(index, t0 + index * 10) for index in range(30)]
    # Until the fresh notifier's subscription is live, the first event is repeated (same id: one notification).
    deadline = time.monotonic() + 20
    while not sink_lines(sink):
        assert time.monotonic() < deadline, "the notifier never delivered the first event"
        publish(publisher, "region.event.app", events[0])
        time.sleep(0.1)
    # Live, then SIGKILL, then published while no notifier is subscribed, then restart.
    for body in events[1:10]:
        publish(publisher, "region.event.app", body)
    wait_until(lambda: len(sink_lines(sink)) >= 10, 20, "the first ten notifications")
    notifier.process.send_signal(signal.SIGKILL)
    notifier.process.wait(10)
    for body in events[10:20]:
        publish(publisher, "region.event.app", body)
    restarted = Notifier(bus, state, sink)
    try:
        _, marker = bus.wait_for(watcher, lambda topic, body: topic.startswith("bus.replayed.notifier-"), timeout=20)
        assert marker["count"] >= 10, "the ten events published while the notifier was down are replayed"
        for body in events[20:]:
            publish(publisher, "region.event.app", body)
        wait_until(lambda: len(sink_lines(sink)) >= 30, 20, "all thirty notifications")
        delivered = sink_lines(sink)
        assert [n["ref"] for n in delivered] == [e["id"] for e in events], "every event once, in order"
    finally:
        restarted.process.send_signal(signal.SIGTERM)
        restarted.process.wait(20)
        watcher.close(0)
        publisher.close(0)
    assert restarted.process.returncode == 0


def test_the_bus_replays_matching_events_then_the_marker_and_never_forwards_the_request(stack):
    bus, _ = stack
    everything = bus.subscriber("")
    publisher = bus.publisher()
    # Until the subscription is live (a topic the ring does not keep, so nothing is replayed twice).
    deadline = time.monotonic() + 10
    while everything.poll(50) == 0 or everything.recv_multipart()[0] != b"test.probe":
        assert time.monotonic() < deadline, "the bus never forwarded to the subscriber"
        publish(publisher, "test.probe", envelope("location", device="p", source="test", lat=0.0, lon=0.0, hacc=1.0))
    start = time.time()
    bodies = [region_event(index, 1_790_000_000 + index) for index in range(3)]
    for body in bodies:
        publish(publisher, "region.event.app", body)
    publish(publisher, "location.raw.car", envelope("location", device="car", source="sim", lat=1.0, lon=2.0, hacc=3.0))
    seen = []
    bus.wait_for(everything, lambda topic, body: seen.append(body["id"]) or body["id"] == bodies[-1]["id"])
    requester = f"py-{uuid.uuid4().hex[:8]}"
    request = envelope("bus.replay", requester=requester, prefixes=["region.event.", "visit."], since=start - 1)
    publish(publisher, "bus.replay", request)
    replayed = []
    _, marker = bus.wait_for(everything, lambda topic, body: replayed.append((topic, body)) or topic == f"bus.replayed.{requester}")
    assert marker["type"] == "bus.replayed" and marker["re"] == request["id"] and marker["count"] == 3
    assert errors(request) == [] and errors(marker) == [], "both match docs/schema"
    assert errors({**request, "prefixes": []}) != [] and errors({**marker, "count": -1}) != []
    assert [b["id"] for t, b in replayed if t.startswith("region.event.")] == [b["id"] for b in bodies]
    assert all(t != "bus.replay" for t, _ in replayed), "the request is for the bus alone"
    # A request for the future replays nothing.
    later = envelope("bus.replay", requester=requester, prefixes=["region.event."], since=time.time() + 60)
    publish(publisher, "bus.replay", later)
    _, empty = bus.wait_for(everything, lambda topic, body: topic == f"bus.replayed.{requester}" and body["re"] == later["id"])
    assert empty["count"] == 0
    # A malformed request is reported, not forwarded.
    publish(publisher, "bus.replay", envelope("bus.replay", requester="has space", prefixes=[]))
    _, error = bus.wait_for(everything, lambda topic, body: topic == "error.bus")
    assert error["code"] == "invalidReplay"
    everything.close(0)
    publisher.close(0)
