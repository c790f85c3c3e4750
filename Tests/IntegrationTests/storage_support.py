"""Helpers for the storage-fault tests: a small filesystem to fill, a --stdio service fed from a
thread, region commands and events, and what a restarted service finds stored."""
import json
import os
import subprocess
import threading
import time

import pytest

from conftest import bin_dir


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



def wait_until(predicate, timeout, what):
    """Polls `predicate` until it returns something true; fails naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
