"""The README's "Your first region", followed on a fresh runtime directory: `locus up`, an import
refused with the grant command named, the grant, the import again, and a simulated drive that
fires an enter and a notification. Also: `locus auth` without a bus, or against a broker that is
not the authorization authority, says which and exits non-zero within its timeout."""
import json
import os
import re
import shlex
import subprocess
import threading
import time

import pytest
import zmq

from conftest import REPO, bin_dir, stop_process


def readme_commands():
    """The command lines of the README's "Your first region" block, without comments or `&`."""
    text = (REPO / "README.md").read_text()
    section = text.split("## Your first region", 1)[1]
    block = section.split("```sh", 1)[1].split("```", 1)[0]
    commands = []
    for line in block.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        command = re.sub(r"\s+#\s.*$", "", line).rstrip(" &")
        commands.append(shlex.split(command))
    return commands


class Stack:
    """`locus up` on a fresh runtime and state directory, the README's environment."""

    def __init__(self, directory, up_args=()):
        self.directory = directory
        runtime, state = directory / "run", directory / "state"
        runtime.mkdir(mode=0o700)
        state.mkdir(mode=0o700)
        self.env = {key: value for key, value in os.environ.items() if key not in ("LOCUS_PUB", "LOCUS_SUB")}
        self.env.update(XDG_RUNTIME_DIR=str(runtime), XDG_STATE_HOME=str(state),
                        PATH=f"{bin_dir()}:{os.environ.get('PATH', '')}")
        self.sub = f"ipc://{runtime}/locus/sub"
        self.pub = f"ipc://{runtime}/locus/pub"
        # `locus up` gives the notifier a JSON-lines sink in the state directory.
        self.notifications = state / "locus" / "notifications.jsonl"
        self.log = open(directory / "up.log", "w")
        self.process = subprocess.Popen(["locus", "up", *up_args], env=self.env,
                                        cwd=REPO, stdout=self.log, stderr=subprocess.STDOUT)
        self.context = zmq.Context()

    def run(self, args, timeout=60):
        return subprocess.run(args, env=self.env, cwd=REPO, capture_output=True, text=True, timeout=timeout)

    def subscriber(self, *prefixes):
        sock = self.context.socket(zmq.SUB)
        sock.connect(self.sub)
        for prefix in prefixes:
            sock.setsockopt_string(zmq.SUBSCRIBE, prefix)
        return sock

    def wait_until_ready(self, services=("bus", "geofence", "fusion", "notifier"), timeout=60):
        """Every named service has published health (replayed from the bus's cache)."""
        sock = self.subscriber("health.")
        seen = set()
        deadline = time.monotonic() + timeout
        try:
            while set(services) - seen and time.monotonic() < deadline:
                if sock.poll(500):
                    topic, _ = sock.recv_multipart()
                    seen.add(topic.decode().split(".", 1)[1])
        finally:
            sock.close(0)
        assert not set(services) - seen, f"not up: {set(services) - seen}; log:\n{self.log_text()}"

    def log_text(self):
        self.log.flush()
        return (self.directory / "up.log").read_text()

    def stop(self):
        stop_process(self.process, timeout=30)
        self.log.close()
        self.context.destroy(linger=0)


@pytest.fixture
def stack(tmp_path):
    instance = Stack(tmp_path)
    yield instance
    instance.stop()


def wait_for(sock, predicate, timeout):
    deadline = time.monotonic() + timeout
    while (remaining := deadline - time.monotonic()) > 0:
        if sock.poll(int(remaining * 1000) + 1):
            topic, body = sock.recv_multipart()
            message = (topic.decode(), json.loads(body))
            if predicate(*message):
                return message
    raise AssertionError("expected message did not arrive in time")


def test_readme_first_region_on_a_fresh_runtime(stack):
    commands = readme_commands()
    up, refused_import, grant, accepted_import, tail, drive = commands
    assert up == ["locus", "up"] and tail[:2] == ["locus", "tail"] and drive[0] == "locus-provider"
    assert refused_import == accepted_import and refused_import[:3] == ["locus", "regions", "import"]
    owner = refused_import[refused_import.index("--owner") + 1]
    regions = [f["properties"]["id"] for f in json.loads((REPO / refused_import[3]).read_text())["features"]]
    stack.wait_until_ready()
    events = stack.subscriber(f"region.event.{owner}", "notify.")

    first = stack.run(refused_import)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "notAuthorized" in first.stdout and " ".join(grant) in first.stdout, first.stdout
    assert f"imported 0 of {len(regions)} regions" in first.stdout
    # The refusal filed a request, as a phone's prompt would: it waits in `locus auth pending`.
    deadline = time.monotonic() + 10
    while "auth.pending." + owner not in (pending := stack.run(["locus", "auth", "pending"])).stdout:
        assert time.monotonic() < deadline, pending.stdout + pending.stderr

    started = time.monotonic()
    granted = stack.run(grant)
    elapsed = time.monotonic() - started
    assert granted.returncode == 0, granted.stderr
    assert granted.stdout == f"{owner}: always, full accuracy\n", granted.stdout  # a sentence; --json gives the message
    assert elapsed < 1.0, f"locus auth grant took {elapsed:.2f} s"
    assert "auth.pending." + owner not in stack.run(["locus", "auth", "pending"]).stdout

    second = stack.run(accepted_import)
    assert second.returncode == 0, second.stdout + second.stderr
    assert f"imported {len(regions)} of {len(regions)} regions" in second.stdout
    listed = stack.run(["locus", "regions", "list", "--owner", owner])
    assert sorted(line.split("\t")[0] for line in listed.stdout.splitlines()) == sorted(regions)

    drive_process = subprocess.Popen(drive, env=stack.env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        enter = wait_for(events, lambda topic, body: topic == f"region.event.{owner}" and body["event"] == "enter", 90)
        assert enter[1]["regionId"] == "store" and enter[1]["device"] == drive[drive.index("--device-id") + 1]
        notified = wait_for(events, lambda topic, body: topic.startswith("notify.")
                            and body.get("ref") == enter[1]["id"], 30)
        assert notified
    finally:
        drive_process.terminate()
        drive_process.wait(timeout=10)
    delivered = [json.loads(line) for line in stack.notifications.read_text().splitlines()]
    assert any("store" in json.dumps(item) for item in delivered)


def test_import_adds_every_valid_region_once_granted(stack, tmp_path):
    features = [
        {"type": "Feature", "properties": {"id": f"c{index}", "radius": 150},
         "geometry": {"type": "Point", "coordinates": [121.40 + index * 0.01, 31.20]}} for index in range(5)]
    features.append({"type": "Feature", "properties": {"id": "too-big", "radius": 500_000},
                     "geometry": {"type": "Point", "coordinates": [121.0, 31.0]}})
    features.append({"type": "Feature", "properties": {"id": "open-ring"},
                     "geometry": {"type": "Polygon", "coordinates": [[[121.0, 31.0], [121.1, 31.0]]]}})
    path = tmp_path / "mixed.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    stack.wait_until_ready(("bus", "geofence"))
    refused = stack.run(["locus", "regions", "import", str(path), "--owner", "fleet"])
    assert "locus auth grant fleet always" in refused.stdout and "imported 0 of 7" in refused.stdout
    assert stack.run(["locus", "auth", "grant", "fleet", "always"]).returncode == 0
    again = stack.run(["locus", "regions", "import", str(path), "--owner", "fleet"])
    assert "imported 5 of 7 regions" in again.stdout, again.stdout
    assert "failed too-big: radiusTooLarge" in again.stdout and "failed open-ring" in again.stdout
    # The grant is kept in the state directory and said in the bus's log.
    assert (stack.directory / "state" / "locus" / "auth-state.json").exists()
    assert "authorization state in" in stack.log_text()


def test_grant_local_policy_starts_ready(tmp_path):
    stack = Stack(tmp_path, up_args=("--grant-local", "always"))
    try:
        stack.wait_until_ready(("bus", "geofence"))
        added = stack.run(["locus", "regions", "add", "--owner", "kiosk", "--id", "door", "--circle", "121.47,31.23,150"])
        assert added.returncode == 0 and "added door" in added.stdout, added.stdout + added.stderr
        assert stack.run(["locus", "auth", "revoke", "kiosk"]).returncode == 0
        refused = stack.run(["locus", "regions", "add", "--owner", "kiosk", "--id", "door2", "--circle", "121.47,31.23,150"])
        assert refused.returncode == 1 and "locus auth grant kiosk always" in refused.stdout
    finally:
        stack.stop()


def test_auth_without_a_bus_says_so_within_its_timeout(tmp_path):
    env = dict(os.environ, LOCUS_PUB=f"ipc://{tmp_path}/pub", LOCUS_SUB=f"ipc://{tmp_path}/sub")
    started = time.monotonic()
    result = subprocess.run([str(bin_dir() / "locus"), "auth", "grant", "world", "always", "--timeout", "2"],
                            env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 69 and "no bus at" in result.stderr, result.stderr
    assert time.monotonic() - started < 2.5
    # tcp: nothing listens; the message says so after the timeout, not before.
    env = dict(os.environ, LOCUS_PUB="tcp://127.0.0.1:9", LOCUS_SUB="tcp://127.0.0.1:9")
    started = time.monotonic()
    result = subprocess.run([str(bin_dir() / "locus"), "auth", "grant", "world", "always", "--timeout", "2"],
                            env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 69 and "no bus at" in result.stderr, result.stderr
    assert 1.9 < time.monotonic() - started < 3.5


def test_auth_against_a_broker_that_is_not_the_authority(tmp_path):
    """A plain ZeroMQ proxy at the endpoints (another broker, a relay): it forwards, nobody answers."""
    context = zmq.Context()
    frontend, backend = context.socket(zmq.XSUB), context.socket(zmq.XPUB)
    frontend.bind(f"ipc://{tmp_path}/pub")
    backend.bind(f"ipc://{tmp_path}/sub")
    proxy = threading.Thread(target=lambda: _proxy(frontend, backend), daemon=True)
    proxy.start()
    try:
        env = dict(os.environ, LOCUS_PUB=f"ipc://{tmp_path}/pub", LOCUS_SUB=f"ipc://{tmp_path}/sub")
        started = time.monotonic()
        result = subprocess.run([str(bin_dir() / "locus"), "auth", "grant", "world", "always", "--timeout", "2"],
                                env=env, capture_output=True, text=True, timeout=30)
        assert result.returncode == 69, result.stderr
        assert "no locus-bus" in result.stderr and "authorization authority" in result.stderr, result.stderr
        assert time.monotonic() - started < 3.5
    finally:
        context.destroy(linger=0)


def _proxy(frontend, backend):
    try:
        zmq.proxy(frontend, backend)
    except zmq.ZMQError:
        pass  # the test ended: its context closed the sockets
