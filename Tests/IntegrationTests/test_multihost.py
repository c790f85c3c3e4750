"""Several hosts: the bus on host A, provider and fusion on host B, geofence and notifier on host C.

The hosts are network namespaces on a private bridge (scripts/netns-hosts.sh); every
connection between them is tcp with CURVE, and the bus admits only the keys on its
allow-list (ZAP). A region added from host C by its owner is entered by a simulated drive
on host B, and the event reaches host C's notifier and a pyzmq CURVE subscriber there.
Needs root and iproute2 (`ip netns`); skipped otherwise.
"""
import json
import os
import pathlib
import queue
import shutil
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import REPO, bin_dir

SCRIPT = REPO / "scripts" / "netns-hosts.sh"
NAME = f"lm{os.getpid() % 100000}"
# The region: a circle the simulated drive crosses, far from anything else.
CENTER_LAT, CENTER_LON, RADIUS_M = 46.0500, 14.5000, 150.0
# Due north along a meridian: 0.0036° of latitude ≈ 400 m before and after the centre.
ROUTE = f"{CENTER_LAT - 0.0036},{CENTER_LON};{CENTER_LAT + 0.0036},{CENTER_LON}"

# A pyzmq CURVE subscriber run on a host: one JSON line per message on stdout.
WATCHER = r"""
import json, sys, zmq
endpoint, server_key, key_file, *prefixes = sys.argv[1:]
def z85(path, field):
    for line in open(path):
        if line.startswith(field + " = "):
            return line.split(" = ", 1)[1].strip().encode()
context = zmq.Context()
sock = context.socket(zmq.SUB)
sock.curve_serverkey = z85(server_key, "public-key")
sock.curve_publickey, sock.curve_secretkey = z85(key_file, "public-key"), z85(key_file, "secret-key")
sock.connect(endpoint)
for prefix in prefixes:
    sock.setsockopt_string(zmq.SUBSCRIBE, prefix)
print(json.dumps({"ready": True}), flush=True)
while True:
    topic, body = sock.recv_multipart()
    print(json.dumps({"topic": topic.decode(), "body": json.loads(body)}), flush=True)
"""


def netns_unavailable():
    if os.geteuid() != 0:
        return "needs root to create network namespaces (runs as root in CI)"
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not installed"
    probe = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"`ip netns` is unavailable: {probe.stderr.strip()}"
    return None


needs_netns = pytest.mark.skipif(netns_unavailable() is not None, reason=str(netns_unavailable()))


@pytest.fixture
def hosts():
    """{'a': (address, namespace), ...}; the namespaces are removed even when the test fails."""
    made = subprocess.run(["bash", str(SCRIPT), "up", NAME], capture_output=True, text=True, timeout=30)
    try:
        assert made.returncode == 0, f"netns-hosts.sh up failed: {made.stderr}"
        table = {}
        for line in made.stdout.split("\n"):
            if line.strip():
                host, address, namespace = line.split()
                table[host] = (address, namespace)
        assert set(table) == {"a", "b", "c"}
        yield table
    finally:
        subprocess.run(["bash", str(SCRIPT), "down", NAME], capture_output=True, timeout=60)
        leftover = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        assert NAME + "-" not in leftover, "test namespaces left behind"


class Processes:
    """Programs started on the test hosts; all are stopped (SIGTERM, then SIGKILL) at the end."""

    def __init__(self, directory: pathlib.Path):
        self.directory = directory
        self.running = []

    def start(self, namespace, name, argv, **kwargs):
        log = open(self.directory / f"{name}.log", "w")
        process = subprocess.Popen(["ip", "netns", "exec", namespace, *argv], stderr=log,
                                   stdout=kwargs.pop("stdout", log), **kwargs)
        self.running.append((name, process, log))
        return process

    def logs(self):
        """The last lines each program wrote to stderr, for failure messages."""
        parts = []
        for name, process, log in self.running:
            log.flush()
            tail = (self.directory / f"{name}.log").read_text(errors="replace").splitlines()[-8:]
            parts.append(f"--- {name} (exit {process.poll()}):\n" + "\n".join(tail))
        return "\n".join(parts)

    def stop(self):
        for _, process, _ in reversed(self.running):
            if process.poll() is None:
                process.terminate()
        for _, process, log in reversed(self.running):
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.close()


class Watcher:
    """Reads the watcher's JSON lines on a thread, so the test can wait for one with a timeout."""

    def __init__(self, process):
        self.lines = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, args=(process.stdout,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            self.lines.put(json.loads(line))

    def wait_for(self, predicate, timeout, what, logs):
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                message = self.lines.get(timeout=remaining)
            except queue.Empty:
                break
            self.seen.append(message)
            if "topic" in message and predicate(message["topic"], message["body"]):
                return message["body"]
        topics = sorted({m.get("topic", "") for m in self.seen})
        raise AssertionError(f"{what} did not arrive within {timeout} s; topics seen: {topics}\n{logs()}")


@needs_netns
def test_region_event_crosses_three_hosts_over_curve(hosts):
    directory = pathlib.Path(tempfile.mkdtemp(prefix="locus-multihost-"))
    processes = Processes(directory)
    try:
        run_scenario(hosts, directory, processes)
    finally:
        processes.stop()
        shutil.rmtree(directory, ignore_errors=True)


def run_scenario(hosts, directory, processes):
    locus = str(bin_dir() / "locus")
    (address_a, ns_a), (_, ns_b), (_, ns_c) = hosts["a"], hosts["b"], hosts["c"]
    pub, sub = f"tcp://{address_a}:5560", f"tcp://{address_a}:5561"

    keys = directory / "keys"
    keys.mkdir()
    public = {}
    for name in ("bus", "gps0", "fusion", "geofence", "notifier", "admin", "app"):
        made = subprocess.run([locus, "keys", "gen", name, "--dir", str(keys)], capture_output=True, text=True, timeout=10)
        assert made.returncode == 0, made.stderr
        public[name] = made.stdout.strip()
        assert oct((keys / f"{name}.key").stat().st_mode & 0o777) == "0o600"
    allow = {"clients": [
        {"name": "gps0", "publicKey": public["gps0"], "roles": ["provider"]},
        {"name": "fusion", "publicKey": public["fusion"], "roles": ["service"]},
        {"name": "geofence", "publicKey": public["geofence"], "roles": ["service"]},
        {"name": "notifier", "publicKey": public["notifier"], "roles": ["service"]},
        {"name": "admin", "publicKey": public["admin"], "roles": ["admin"]},
        {"name": "app", "publicKey": public["app"], "manifest": {
            "whenInUse": "Shows the depot on the map", "always": "Tells you when a vehicle reaches the depot"}},
    ]}
    (directory / "allow.json").write_text(json.dumps(allow))

    def curve(name):
        return ["--curve-key", str(keys / f"{name}.key"), "--curve-server-key", str(keys / "bus.pub")]

    def service(program, name, *args):
        return [str(bin_dir() / program), *args, "--pub", pub, "--sub", sub, *curve(name), "--health-interval", "0.5"]

    # Host A: the bus, tcp only, CURVE with the ZAP allow-list.
    processes.start(ns_a, "bus", [str(bin_dir() / "locus-bus"), "--pub", f"tcp://{address_a}:5560",
                                  "--sub", f"tcp://{address_a}:5561", "--allow", str(directory / "allow.json"),
                                  "--curve-secret", str(keys / "bus.key"), "--state", str(directory / "bus-state"),
                                  "--health-interval", "0.5"])
    # Host C: the app's own CURVE subscriber.
    watcher_process = processes.start(ns_c, "watcher", ["python3", "-u", "-c", WATCHER, sub, str(keys / "bus.pub"),
                                                        str(keys / "app.key"), "health.", "auth.status.app",
                                                        "region.event.app", "notify."],
                                      stdout=subprocess.PIPE, text=True)
    watcher = Watcher(watcher_process)
    watcher.wait_for(lambda topic, body: topic == "health.bus", 15, "health.bus from host A at host C", processes.logs)

    # The person grants the app `always` (it owns regions), as admin from host C over CURVE.
    granted = subprocess.run(["ip", "netns", "exec", ns_c, locus, "auth", "grant", "app", "always",
                              "--pub", pub, "--sub", sub, *curve("admin")], capture_output=True, text=True, timeout=20)
    assert granted.returncode == 0, granted.stdout + granted.stderr
    watcher.wait_for(lambda topic, body: topic == "auth.status.app" and body["status"] == "always", 10,
                     "auth.status.app = always", processes.logs)

    # Host B: fusion; host C: geofence and notifier (jsonl sink).
    notifications = directory / "notifications.jsonl"
    processes.start(ns_b, "fusion", service("locus-fusion", "fusion"))
    processes.start(ns_c, "geofence", service("locus-geofence", "geofence", "--debounce", "1"))
    processes.start(ns_c, "notifier", service("locus-notifier", "notifier", "--sink", f"jsonl:{notifications}"))
    healthy = set()
    watcher.wait_for(lambda topic, body: healthy.add(topic) or healthy >= {"health.fusion", "health.geofence",
                                                                          "health.notifier"},
                     15, "health of fusion (B), geofence and notifier (C)", processes.logs)

    # The owner registers its region from host C; the geofence there acknowledges through the bus on A.
    added = subprocess.run(["ip", "netns", "exec", ns_c, locus, "regions", "add", "--owner", "app", "--id", "depot",
                            "--circle", f"{CENTER_LON},{CENTER_LAT},{RADIUS_M}", "--pub", pub, "--sub", sub,
                            *curve("app")], capture_output=True, text=True, timeout=30)
    assert added.returncode == 0 and "added depot" in added.stdout, added.stdout + added.stderr + processes.logs()

    # Host B: a simulated vehicle drives from 250 m outside the circle through it.
    processes.start(ns_b, "provider", service("locus-provider", "gps0", "sim", "--device-id", "van-1",
                                              "--waypoints", ROUTE, "--mps", "40", "--hz", "2", "--hacc", "3",
                                              "--seed", "9"))
    event = watcher.wait_for(lambda topic, body: topic == "region.event.app" and body["event"] == "enter", 30,
                             "enter on region.event.app at host C", processes.logs)
    assert (event["owner"], event["regionId"], event["device"], event["state"]) == ("app", "depot", "van-1", "inside")
    assert event["src"].startswith("geofence/")
    # Delivered means written and fsynced on host C.
    deadline = time.monotonic() + 15
    while not any(line.get("ref") == event["id"] for line in
                  (json.loads(text) for text in (notifications.read_text() if notifications.exists() else "").splitlines()
                   if text.strip())):
        assert time.monotonic() < deadline, "the notifier's delivery did not arrive within 15 s\n" + processes.logs()
        time.sleep(0.1)
    # The notifier's records (every owner's deliveries) are for services and administrators,
    # not for an app, even one that asked for notify. (docs/security.md).
    time.sleep(0.5)
    while not watcher.lines.empty():
        watcher.seen.append(watcher.lines.get())
    assert not any(m.get("topic", "").startswith("notify.") for m in watcher.seen)


def test_bench_bus_curve_prints_null_and_curve_side_by_side():
    """The CURVE figures come from the same run as the NULL ones, for both brokers, with nothing lost."""
    run = subprocess.run([str(bin_dir() / "locus"), "bench", "bus", "--curve", "--count", "20000", "--rounds", "1"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    rows = {}
    for line in run.stdout.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[0].startswith(("raw libzmq", "locus-bus")):
            rows[cells[0].split(" ")[0]] = cells
    assert set(rows) == {"raw", "locus-bus"}, run.stdout
    for name, cells in rows.items():
        null_rate, curve_rate, ratio = int(cells[1]), int(cells[2]), float(cells[3])
        assert null_rate > 0 and curve_rate > 0, run.stdout
        assert abs(ratio - curve_rate / null_rate) < 0.01, run.stdout
        assert cells[4] == "0 / 0", f"{name} lost messages: {run.stdout}"
