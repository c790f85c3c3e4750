"""Reliability (docs/reliability.md): the chaos run against its fault-free reference, the
restart behaviour it relies on, and load containment on the bus."""
import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import time

import zmq

from conftest import REPO, Bus, bin_dir, envelope

sys.path.insert(0, str(REPO / "scripts"))
import chaos  # noqa: E402


def test_hundred_kills_lose_nothing_repeat_nothing_and_keep_order(tmp_path):
    scenario = chaos.Scenario(route_seconds=1500, speed=10)
    reference_sink = chaos.reference(scenario, tmp_path)
    assert len(reference_sink) >= 20, "the route must cross many regions"
    assert all(n["region"].startswith("r") for n in reference_sink), "decoy regions are never reached"
    run = chaos.run_with_faults(scenario, tmp_path, kills=100, rng=random.Random(1))
    report = chaos.compare(reference_sink, run)
    (tmp_path / "report.json").write_text(json.dumps(report, indent=1))
    (tmp_path / "run.json").write_text(json.dumps({k: run[k] for k in ("kills", "events", "live_since")}, indent=1))
    assert report["kills"] == 100
    assert report["not_back"] == 0, "every killed service must be restarted by locus up"
    assert all(count > 0 for count in report["kills_by_service"].values())
    assert report["duplicates"] == []
    assert report["extra"] == []
    assert report["missing"] == [], json.dumps(report, indent=1)
    assert report["delivered"] == report["reference"]
    assert report["ok"]


def test_live_replay_restarted_late_continues_where_the_route_is(tmp_path):
    """A provider started 3 s into a live replay at 100× skips the 300 s of route it missed and
    sends exactly the fixes the full replay has from there on (same seed, same noise)."""
    route = ["sim", "--waypoints", "31.1,121.3;31.1,121.35", "--mps", "10", "--hz", "1", "--seed", "4",
             "--start", str(int(chaos.START_T)), "--device-id", "d", "--stdio"]
    full = run_provider([*route, "--rate", "max"])
    launched = time.time()
    late = run_provider([*route, "--speed", "100", "--live-since", f"{launched - 3:.3f}"])
    offsets = [body["t"] - chaos.START_T for body in late]
    # Due now: 300 s of route, less the late tolerance (0.5 s of wall = 50 s), plus the start-up time.
    assert 250 <= offsets[0] <= 250 + 100 * (time.time() - launched)
    by_time = {body["t"]: (body["lat"], body["lon"], body["hacc"]) for body in full}
    assert [(b["lat"], b["lon"], b["hacc"]) for b in late] == [by_time[b["t"]] for b in late]
    assert offsets[-1] == full[-1]["t"] - chaos.START_T


def run_provider(arguments):
    result = subprocess.run([str(bin_dir() / "locus-provider"), *arguments], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return [json.loads(line.split(" ", 1)[1]) for line in result.stdout.splitlines() if line.startswith("location.raw.")]


def test_up_gives_each_service_its_config_file_and_restarts_quickly_after_a_healthy_run(tmp_path):
    """`--config-dir` hands fusion its fusion.json (its state directory appears), and with
    `--healthy-after 1` a service killed after running a while is back within the first
    back-off step every time, instead of waiting longer after each kill."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "fusion.json").write_text(json.dumps({"state": str(tmp_path / "fusion"), "health-interval": 0.5}))
    env = dict(os.environ, LOCUS_PUB=f"ipc://{tmp_path}/pub", LOCUS_SUB=f"ipc://{tmp_path}/sub")
    up = subprocess.Popen([str(bin_dir() / "locus"), "up", "--bin", str(bin_dir()), "--only", "bus,fusion",
                           "--config-dir", str(tmp_path / "config"), "--healthy-after", "1"],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    monitor = chaos.Monitor(env["LOCUS_SUB"])
    monitor.start()
    try:
        def fusion_ready():
            pid = chaos.children(up.pid).get("locus-fusion")
            return pid if pid and monitor.ready_since("fusion", pid) else None
        assert chaos.wait_until(fusion_ready, 15), "fusion did not start"
        assert (tmp_path / "fusion" / "approx.secret").exists(), "fusion did not get its config file"
        for _ in range(4):
            time.sleep(1.2)
            pid = fusion_ready()
            killed_at = time.time()
            os.kill(pid, signal.SIGKILL)
            assert chaos.wait_until(lambda: fusion_ready() not in (None, pid), 10)
            back = monitor.ready_since("fusion", fusion_ready())
            assert back - killed_at < 2.0, f"restart took {back - killed_at:.2f} s"
    finally:
        up.send_signal(signal.SIGTERM)
        up.wait(30)
        monitor.close()
    assert up.returncode == 0


def test_flooding_publisher_is_contained_and_its_drops_show_in_health(runtime_dir):
    """A publisher flooding a topic that a stalled subscriber takes overflows only that
    subscriber's queue: another publisher's messages all reach their subscriber while the
    flood goes on, and the bus reports the drops in health.bus."""
    bus = Bus(runtime_dir, extra_args=("--hwm", "100"))
    try:
        stalled = bus.subscriber("flood.")
        stalled.setsockopt(zmq.RCVHWM, 10)
        watcher = bus.subscriber("data.", "health.bus")
        flood = bus.publisher()
        steady = bus.publisher()
        probe = envelope("location", device="p", source="test", lat=0.0, lon=0.0, hacc=1.0)
        deadline = time.monotonic() + 10
        while watcher.poll(50) == 0:  # subscriptions propagate: wait until data. flows end to end
            assert time.monotonic() < deadline, "the bus never forwarded to the watcher"
            steady.send_multipart([b"data.probe", json.dumps(probe).encode()])
        while watcher.poll(200):
            watcher.recv_multipart()
        flood_body = json.dumps(envelope("location", device="f", source="test", lat=0.0, lon=0.0, hacc=1.0)).encode()
        received, dropped, sent = 0, 0, 0
        for index in range(500):
            for _ in range(200):
                flood.send_multipart([b"flood.x", flood_body])
            body = envelope("location", device="s", source="test", lat=0.0, lon=0.0, hacc=1.0)
            steady.send_multipart([b"data.x", json.dumps(body).encode()])
            sent += 1
            while watcher.poll(0):
                topic, payload = watcher.recv_multipart()
                if topic == b"data.x":
                    received += 1
                elif topic == b"health.bus":
                    dropped = max(dropped, json.loads(payload)["counters"].get("dropped", 0))
        deadline = time.monotonic() + 10
        while (received < sent or dropped == 0) and time.monotonic() < deadline:
            if watcher.poll(200):
                topic, payload = watcher.recv_multipart()
                if topic == b"data.x":
                    received += 1
                elif topic == b"health.bus":
                    dropped = max(dropped, json.loads(payload)["counters"].get("dropped", 0))
        assert received == sent, f"the steady publisher lost {sent - received} of {sent} during the flood"
        assert dropped > 0, "the flood's overflow must be counted in health.bus"
        for sock in (stalled, watcher, flood, steady):
            sock.close(0)
    finally:
        bus.stop()


def test_driver_is_usable_by_hand():
    result = subprocess.run([sys.executable, str(REPO / "scripts" / "chaos.py"), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "--long" in result.stdout and "--kills" in result.stdout
