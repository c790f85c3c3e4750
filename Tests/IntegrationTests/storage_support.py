"""Helpers for the storage-fault tests: a small filesystem to fill, a --stdio service fed from a
thread, region commands and events (as text lines, or as bodies for the bus), a watcher of
what the bus carries, and what a restarted service or bus finds stored."""
import json
import os
import subprocess
import threading
import time
import uuid

import pytest

from conftest import bin_dir, envelope, wait_until  # noqa: F401 (wait_until: the storage tests import it from here)


def mount_tmpfs(mount, size="64m"):
    """Mounts a tmpfs of `size` at `mount`, or skips the test (printing why) when that is not possible."""
    if os.geteuid() != 0:
        print("skipped: mounting a tmpfs needs root")
        pytest.skip("mounting a tmpfs needs root")
    mount.mkdir(exist_ok=True)
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True, text=True)
    if result.returncode != 0:
        print(f"skipped: cannot mount a tmpfs: {result.stderr.strip()}")
        pytest.skip(f"cannot mount a tmpfs: {result.stderr.strip()}")


@pytest.fixture
def small_fs(tmp_path):
    mount = tmp_path / "state"
    mount_tmpfs(mount)
    yield mount
    subprocess.run(["umount", "-l", str(mount)])


def fill(directory):
    """Takes every free byte of the filesystem; returns the filler's path."""
    path = directory / "filler"
    with open(path, "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(b"\0" * 65536)
        except OSError:
            pass
        try:
            while True:
                filler.write(b"\0" * 512)
        except OSError:
            pass
    return path


class StdioService:
    """A --stdio service fed from a thread (its input stops being read while it holds back)."""

    def __init__(self, program, *args):
        self.process = subprocess.Popen([str(bin_dir() / program), "--stdio", *args], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.out, self.err = [], []
        threading.Thread(target=lambda: self.out.extend(self.process.stdout), daemon=True).start()
        threading.Thread(target=lambda: self.err.extend(self.process.stderr), daemon=True).start()

    def feed(self, lines, close=False):
        def write():
            try:
                for line in lines:
                    self.process.stdin.write(line + "\n")
                self.process.stdin.flush()
                if close:
                    self.process.stdin.close()
            except (BrokenPipeError, ValueError):
                pass
        thread = threading.Thread(target=write, daemon=True)
        thread.start()
        return thread

    def wait_for(self, predicate, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if predicate():
                return True
            time.sleep(0.05)
        return False

    def messages(self):
        return [json.loads(line.split(" ", 1)[1]) for line in list(self.out) if " " in line]


def region_add(i):
    body = {"v": 1, "type": "region.add", "id": f"cmd-{i}", "t": 1000 + i, "src": "test/s", "seq": i, "owner": "app",
            "region": {"id": f"r{i}", "shape": {"type": "Circle", "center": [121.0 + i * 0.001, 31.0], "radius": 200}}}
    return "region.cmd " + json.dumps(body)


def region_event(i):
    body = {"v": 1, "type": "region.event", "id": f"ev-{i}", "t": 1000 + i, "src": "geofence/main", "seq": i, "owner": "app",
            "regionId": f"r{i % 7}", "device": "car", "event": "enter" if i % 2 else "exit",
            "state": "inside" if i % 2 else "outside", "cause": "crossing", "location": {"lat": 31.0, "lon": 121.0, "hacc": 5, "t": 1000 + i}}
    return "region.event.app " + json.dumps(body)


def stored_regions(db):
    listing = 'region.cmd {"v":1,"type":"region.list","id":"q","t":99999,"src":"t/s","seq":1,"owner":"app"}\n'
    result = subprocess.run([str(bin_dir() / "locus-geofence"), "--stdio", "--default-authorization", "always", "--db", str(db)],
                            input=listing, capture_output=True, text=True, timeout=60)
    replies = [json.loads(line.split(" ", 1)[1]) for line in result.stdout.splitlines() if " " in line]
    return {region["id"] for reply in replies if reply["type"] == "region.list" for region in reply["regions"]}


def delivered(sink):
    return [json.loads(line)["ref"] for line in open(sink)] if sink.exists() else []





# On a real bus.

def publish(sock, topic, body):
    sock.send_multipart([topic.encode(), json.dumps(body).encode()])


def event_body(i):
    return envelope("region.event", owner="app", regionId=f"r{i % 7}", device="car", event="enter" if i % 2 else "exit",
                    state="inside" if i % 2 else "outside", cause="crossing", id=f"ev-{i}",
                    location={"lat": 31.0, "lon": 121.0, "hacc": 5.0, "t": time.time()})


def add_body(i):
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
    everything = bus.subscriber(prefix, f"bus.replayed.{requester}", "test.probe")
    publisher = bus.publisher()
    probe = envelope("location", device="p", source="test", lat=0.0, lon=0.0, hacc=1.0)
    # Until the subscription is live (a topic the ring does not keep, so nothing is replayed twice).
    deadline = time.monotonic() + 20
    while everything.poll(50) == 0 or everything.recv_multipart()[0] != b"test.probe":
        assert time.monotonic() < deadline, "the bus never forwarded to the subscriber"
        publish(publisher, "test.probe", probe)
    publish(publisher, "bus.replay", envelope("bus.replay", requester=requester, prefixes=[prefix], since=0))
    replayed = []
    _, marker = bus.wait_for(everything, lambda topic, body: topic.startswith("bus.replayed.")
                             or (topic.startswith(prefix) and replayed.append(body["id"])), timeout=30)
    everything.close(0)
    publisher.close(0)
    assert marker["count"] == len(replayed), f"the marker counts {marker['count']}, {len(replayed)} arrived"
    return replayed


def start_service(program, bus, log, *args):
    """Starts a service on `bus`, its log in the file `log` (read when a test fails)."""
    with open(log, "w") as stderr:
        return subprocess.Popen([str(bin_dir() / program), "--health-interval", "0.5", *args], env=bus.env,
                                stdout=subprocess.DEVNULL, stderr=stderr)
