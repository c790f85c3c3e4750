"""Storage faults: a state directory on a small tmpfs that fills up mid-run and is freed a
few seconds later. What was acknowledged survives a restart, events are delivered exactly
once and in order, nothing is dropped. Needs root (mount); skips with the reason otherwise."""
import json
import os
import signal
import subprocess
import threading
import time

import pytest

from conftest import bin_dir


@pytest.fixture
def small_fs(tmp_path):
    if os.geteuid() != 0:
        print("skipped: mounting a tmpfs needs root")
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "state"
    mount.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], capture_output=True, text=True)
    if result.returncode != 0:
        print(f"skipped: cannot mount a tmpfs: {result.stderr.strip()}")
        pytest.skip(f"cannot mount a tmpfs: {result.stderr.strip()}")
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


def test_geofence_acknowledges_only_stored_regions_through_a_full_disk(small_fs):
    db = small_fs / "g" / "geofence.db"
    db.parent.mkdir()
    service = StdioService("locus-geofence", "--default-authorization", "always", "--db", str(db))
    service.feed([region_add(i) for i in range(1, 301)])
    assert service.wait_for(lambda: sum(m["type"] == "region.added" for m in service.messages()) == 300)
    filler = fill(small_fs)
    writer = service.feed([region_add(i) for i in range(301, 1501)], close=True)
    assert service.wait_for(lambda: any(m["type"] == "error" and m["code"] == "storage" for m in service.messages()), 30)
    time.sleep(3)
    os.unlink(filler)
    writer.join(60)
    assert service.process.wait(timeout=120) == 0
    messages = service.messages()
    acknowledged = {m["region"]["id"] for m in messages if m["type"] == "region.added"}
    failed = [m for m in messages if m["type"] == "region.failed"]
    reports = [m for m in messages if m["type"] == "error" and m["code"] == "storage"]
    assert len(reports) == 1, "one report per episode"
    assert all(f["code"] == "storage" and str(db) in f["message"] for f in failed)
    assert len(acknowledged) + len(failed) == 1500, "every command answered once"
    assert len(acknowledged) > 1000, "commands after the episode were taken again"
    assert "holding input back" in "".join(service.err) and "taking input again" in "".join(service.err)
    stored = stored_regions(db)
    assert acknowledged <= stored, f"acknowledged but lost: {sorted(acknowledged - stored)[:5]}"
    assert not stored & {f["regionId"] for f in failed}, "a failed region was stored"


def delivered(sink):
    return [json.loads(line)["ref"] for line in open(sink)] if sink.exists() else []


def test_notifier_delivers_each_event_once_in_order_through_a_full_disk(small_fs, tmp_path):
    sink = tmp_path / "sink.jsonl"
    service = StdioService("locus-notifier", "--state", str(small_fs / "nt"), "--sink", f"jsonl:{sink}")
    service.feed([region_event(i) for i in range(1, 201)])
    assert service.wait_for(lambda: len(delivered(sink)) == 200)
    filler = fill(small_fs)
    writer = service.feed([region_event(i) for i in range(201, 1001)], close=True)
    time.sleep(3)
    os.unlink(filler)
    writer.join(60)
    assert service.process.wait(timeout=120) == 0
    assert delivered(sink) == [f"ev-{i}" for i in range(1, 1001)]
    errors = "".join(service.err)
    assert "holding input back" in errors and "taking input again" in errors


def test_kill_while_the_disk_is_full_loses_nothing_acknowledged_and_repeats_nothing(small_fs, tmp_path):
    sink = tmp_path / "sink.jsonl"
    state = small_fs / "nt"
    service = StdioService("locus-notifier", "--state", str(state), "--sink", f"jsonl:{sink}")
    service.feed([region_event(i) for i in range(1, 201)])
    assert service.wait_for(lambda: len(delivered(sink)) == 200)
    filler = fill(small_fs)
    service.feed([region_event(i) for i in range(201, 601)])
    assert service.wait_for(lambda: "holding input back" in "".join(service.err), 30)
    service.process.send_signal(signal.SIGKILL)
    service.process.wait(timeout=10)
    os.unlink(filler)
    # Restarted on the same outbox, the events arrive again (as the bus's replay would send them).
    again = StdioService("locus-notifier", "--state", str(state), "--sink", f"jsonl:{sink}")
    again.feed([region_event(i) for i in range(1, 601)], close=True)
    assert again.process.wait(timeout=120) == 0
    assert delivered(sink) == [f"ev-{i}" for i in range(1, 601)]

    db = small_fs / "g" / "geofence.db"
    db.parent.mkdir()
    geofence = StdioService("locus-geofence", "--default-authorization", "always", "--db", str(db))
    geofence.feed([region_add(i) for i in range(1, 201)])
    assert geofence.wait_for(lambda: sum(m["type"] == "region.added" for m in geofence.messages()) == 200)
    filler = fill(small_fs)
    geofence.feed([region_add(i) for i in range(201, 601)])
    assert geofence.wait_for(lambda: "holding input back" in "".join(geofence.err), 30)
    acknowledged = {m["region"]["id"] for m in geofence.messages() if m["type"] == "region.added"}
    geofence.process.send_signal(signal.SIGKILL)
    geofence.process.wait(timeout=10)
    os.unlink(filler)
    assert acknowledged <= stored_regions(db)
