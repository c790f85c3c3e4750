"""Storage faults seen on a real bus: each service's `health.<service>` shows `degraded`
(with the fault under `storage`) while its state directory is full and `ok` once space
returns, and the bus's replay-ring log catches up, so a bus killed after the episode still
replays every event. Needs root (tmpfs); skips with the reason otherwise."""
import json
import os
import signal
import subprocess
import time
import uuid

from conftest import Bus, bin_dir, envelope
from storage_support import delivered, fill, small_fs, stored_regions, wait_until  # noqa: F401


def publish(sock, topic, body):
    sock.send_multipart([topic.encode(), json.dumps(body).encode()])


def region_event(i):
    return envelope("region.event", owner="app", regionId=f"r{i % 7}", device="car", event="enter" if i % 2 else "exit",
                    state="inside" if i % 2 else "outside", cause="crossing", id=f"ev-{i}",
                    location={"lat": 31.0, "lon": 121.0, "hacc": 5.0, "t": time.time()})


def region_add(i):
    return envelope("region.add", owner="app", id=f"cmd-{i}",
                    region={"id": f"r{i}", "shape": {"type": "Circle", "center": [121.0 + i * 0.001, 31.0], "radius": 200}})


class Watch:
    """Everything a subscriber sees, kept, so a test can wait for a message and count later."""

    def __init__(self, bus, *prefixes):
        self.bus = bus
        self.sock = bus.subscriber(*prefixes)
        self.seen = []

    def until(self, predicate, since=0, timeout=60, what="message"):
        """Waits for a message received at index `since` or later that `predicate(topic, body)` holds for; returns its index."""
        deadline = time.monotonic() + timeout
        checked = since
        while True:
            while checked < len(self.seen):
                if predicate(*self.seen[checked]):
                    return checked
                checked += 1
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"timed out waiting for {what}"
            message = self.bus.receive(self.sock, min(remaining, 0.5))
            if message is not None:
                self.seen.append(message)

    def drain(self, seconds=0.5):
        """Keeps what arrives during the next `seconds`."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            if (message := self.bus.receive(self.sock, remaining)) is not None:
                self.seen.append(message)

    def health(self, service, state, since=0, fault=None):
        """Waits for `health.<service>` in `state` (with `fault` in its storage detail); returns its index."""
        return self.until(lambda topic, body: topic == f"health.{service}" and body["state"] == state
                          and (fault is None or fault in (body.get("detail") or {}).get("storage", "")),
                          since=since, what=f"{service} {state}")

    def reports(self, service):
        return [b for t, b in self.seen if t == f"error.{service}" and b["code"] == "storage"]


def replay_all(bus, prefix):
    """Asks the bus for every event it keeps under `prefix`; returns their ids in order."""
    requester = f"py-{uuid.uuid4().hex[:8]}"
    everything = bus.subscriber(prefix, f"bus.replayed.{requester}")
    publisher = bus.publisher()
    time.sleep(0.3)  # the subscription reaches the bus before the request it answers (checked by the count below)
    publish(publisher, "bus.replay", envelope("bus.replay", requester=requester, prefixes=[prefix], since=0))
    replayed = []
    _, marker = bus.wait_for(everything, lambda topic, body: replayed.append(body["id"]) or topic.startswith("bus.replayed."),
                             timeout=30)
    everything.close(0)
    publisher.close(0)
    assert marker["count"] == len(replayed) - 1
    return replayed[:-1]


def test_the_bus_replay_ring_resumes_after_a_full_disk(small_fs, runtime_dir):
    state = small_fs / "bus"
    bus = Bus(runtime_dir, ["--state", str(state)])
    try:
        watch = Watch(bus, "health.bus", "error.bus")
        publisher = bus.publisher()
        log = state / "replay-ring.log"
        for i in range(1, 201):
            publish(publisher, "region.event.app", region_event(i))
        wait_until(lambda: log.exists() and b"ev-200" in log.read_bytes(), 30, "the first events in the ring's log")
        filler = fill(small_fs)
        for i in range(201, 401):
            publish(publisher, "region.event.app", region_event(i))
        degraded = watch.health("bus", "degraded", fault="disk full")
        time.sleep(2)
        for i in range(401, 501):
            publish(publisher, "region.event.app", region_event(i))
        os.unlink(filler)
        watch.health("bus", "ok", since=degraded)
        for i in range(501, 601):
            publish(publisher, "region.event.app", region_event(i))
        wait_until(lambda: b"ev-600" in log.read_bytes(), 30, "the ring's log to catch up")
        assert len(watch.reports("bus")) == 1, "one report per episode"
        publisher.close(0)
        watch.sock.close(0)
    finally:
        bus.process.send_signal(signal.SIGKILL)
        bus.process.wait(timeout=10)
        bus.context.destroy(linger=0)
    # Killed, then restarted on the same log: it replays everything, written during the episode or not.
    again = Bus(runtime_dir, ["--state", str(state)])
    try:
        assert replay_all(again, "region.event.") == [f"ev-{i}" for i in range(1, 601)]
    finally:
        again.stop()


def start(program, bus, log, *args):
    """Starts a service on `bus`, its log in the file `log` (read when a test fails)."""
    with open(log, "w") as stderr:
        return subprocess.Popen([str(bin_dir() / program), "--health-interval", "0.5", *args], env=bus.env,
                                stdout=subprocess.DEVNULL, stderr=stderr)


def test_geofence_and_notifier_health_through_a_full_disk(small_fs, runtime_dir, tmp_path):
    bus = Bus(runtime_dir)
    db, sink = small_fs / "g" / "geofence.db", tmp_path / "sink.jsonl"
    db.parent.mkdir()
    geofence = start("locus-geofence", bus, tmp_path / "geofence.log", "--default-authorization", "always", "--db", str(db))
    notifier = start("locus-notifier", bus, tmp_path / "notifier.log", "--state", str(small_fs / "nt"), "--sink", f"jsonl:{sink}")
    try:
        watch = Watch(bus, "health.geofence", "health.notifier", "error.geofence", "error.notifier", "region.state.app")
        watch.health("geofence", "ok")
        watch.health("notifier", "ok")
        publisher = bus.publisher()
        time.sleep(0.5)  # both services' subscriptions reach the bus

        def answered():
            return {b["region"]["id"] if b["type"] == "region.added" else b["regionId"]: b["type"]
                    for t, b in watch.seen if b["type"] in ("region.added", "region.failed")}

        def send(first, last):
            for i in range(first, last + 1):
                publish(publisher, "region.cmd", region_add(i))
                publish(publisher, "region.event.app", region_event(i))

        send(1, 100)
        wait_until(lambda: watch.drain(0.05) or len(answered()) == 100, 60, "the first region commands answered")
        wait_until(lambda: len(delivered(sink)) == 100, 60, "the first events delivered")
        start_index = len(watch.seen)
        filler = fill(small_fs)
        send(101, 300)
        geofence_degraded = watch.health("geofence", "degraded", since=start_index, fault="disk full")
        notifier_degraded = watch.health("notifier", "degraded", since=start_index, fault="disk full")
        time.sleep(2)
        os.unlink(filler)
        watch.health("geofence", "ok", since=geofence_degraded)
        watch.health("notifier", "ok", since=notifier_degraded)
        send(301, 400)
        wait_until(lambda: watch.drain(0.05) or len(answered()) == 400, 90, "every region command answered")
        wait_until(lambda: len(delivered(sink)) >= 400, 90, "every event delivered")
        watch.drain()
        assert delivered(sink) == [f"ev-{i}" for i in range(1, 401)], "each event once, in order"
        assert len(watch.reports("geofence")) == 1 and len(watch.reports("notifier")) == 1, "one report per episode"
        acknowledged = {region for region, kind in answered().items() if kind == "region.added"}
        assert {f"r{i}" for i in [*range(1, 101), *range(301, 401)]} <= acknowledged, "commands before and after the episode acknowledged"
        publisher.close(0)
    finally:
        for process in (geofence, notifier):
            process.terminate()
            assert process.wait(timeout=30) == 0
        bus.stop()
    assert acknowledged <= stored_regions(db), f"acknowledged but lost: {sorted(acknowledged - stored_regions(db))[:5]}"
