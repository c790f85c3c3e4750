"""locus-fusion as a real process: --stdio on generated input, and on a real bus with pyzmq."""
import json
import math
import os
import stat
import subprocess
import time

import pytest

from conftest import bin_dir, envelope

T0 = 1_700_000_000.0
BASE_LAT, BASE_LON = 37.4, -122.1


def raw_fix(device, t, east=0.0, north=0.0, hacc=5.0, source="gps", **extra):
    lat = BASE_LAT + north / 111_000
    lon = BASE_LON + east / (111_000 * math.cos(math.radians(BASE_LAT)))
    body = envelope("location", t=t, device=device, source=source, lat=lat, lon=lon, hacc=hacc)
    body.update(extra)
    return f"location.raw.{device}", body


def run_stdio(tmp_path, messages, *args, name="input.txt"):
    """Runs locus-fusion --stdio with the messages as text-form lines; returns (topic, body) pairs."""
    path = tmp_path / name
    with open(path, "w") as handle:
        for topic, body in messages:
            if isinstance(body, str):
                handle.write(f"{topic} {body}\n")
            else:
                handle.write(f"{topic} {json.dumps(body)}\n")
    # stdin from a regular file: the result must not depend on pipe buffering.
    with open(path) as stdin:
        done = subprocess.run([str(bin_dir() / "locus-fusion"), "--stdio", *args], stdin=stdin,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = []
    for line in done.stdout.splitlines():
        topic, _, body = line.partition(" ")
        out.append((topic, json.loads(body)))
    return out, done.stderr


def test_stdio_fuses_and_reports_bad_input(tmp_path):
    messages = [raw_fix("car", T0 + i, east=10.0 * i) for i in range(30)]
    messages.insert(5, ("location.raw.bad", '{"v":1,"type":"location","id":"x1","t":%f,"src":"t","device":"bad",'
                                            '"source":"gps","lat":95,"lon":0,"hacc":5}' % (T0 + 5)))
    messages.insert(8, ("location.raw.bad", '{"v":1,"type":"location","id":"x2","t":%f,"src":"t","device":"bad",'
                                            '"source":"gps","lat":1,"lon":0,"hacc":0}' % (T0 + 7)))
    messages.insert(9, ("location.raw.bad", "not json at all"))
    out, _ = run_stdio(tmp_path, messages, "--state", str(tmp_path / "state"))
    fused = [body for topic, body in out if topic == "location.fused.car"]
    assert len(fused) == 30
    assert all(body["source"] == "fused" and body["tier"] == "high" and body["type"] == "location" for body in fused)
    assert fused[-1]["t"] == pytest.approx(T0 + 29)
    # Fix times are kept, and the output is in order with a per-publisher seq.
    seqs = [body["seq"] for _, body in out]
    assert seqs == sorted(seqs)
    errors = [body for topic, body in out if topic == "error.fusion"]
    assert len(errors) == 3
    assert not any(topic.endswith(".bad") for topic, _ in out)
    approx = [body for topic, body in out if topic == "location.approx.car"]
    assert approx and all(body["mode"] == "approx" and "speed" not in body and body["hacc"] >= 1767 for body in approx)
    assert [topic for topic, _ in out].count("location.significant.car") == 1
    # The secret was created private, in the state directory.
    secret = tmp_path / "state" / "approx.secret"
    assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600


def test_stdio_restart_republishes_last_known(tmp_path):
    state = str(tmp_path / "state")
    first, _ = run_stdio(tmp_path, [raw_fix("van", T0 + i, north=5.0 * i) for i in range(10)], "--state", state, name="a.txt")
    last = [body for topic, body in first if topic == "location.fused.van"][-1]
    second, _ = run_stdio(tmp_path, [raw_fix("other", T0 + 100)], "--state", state, name="b.txt")
    cached = [body for topic, body in second if topic == "location.fused.van"]
    assert len(cached) == 1
    assert cached[0]["source"] == "cache" and cached[0]["mode"] == "cache"
    assert cached[0]["lat"] == pytest.approx(last["lat"], abs=1e-9)
    assert cached[0]["age"] == pytest.approx(100 - 9, abs=1e-6)
    # Approx points are the same across restarts: the secret persisted.
    third, _ = run_stdio(tmp_path, [raw_fix("van", T0 + 9.5, north=45.0)], "--state", state, name="c.txt")
    approx_first = [body for topic, body in first if topic == "location.approx.van"][-1]
    approx_third = [body for topic, body in third if topic == "location.approx.van" and body["source"] == "fused"]
    assert approx_third and approx_third[-1]["lat"] == approx_first["lat"]


@pytest.fixture
def fusion(bus, runtime_dir):
    process = subprocess.Popen([str(bin_dir() / "locus-fusion"), "--health-interval", "0.5", "--state", str(runtime_dir / "state")],
                               env=bus.env, stderr=subprocess.PIPE, text=True)
    health = bus.subscriber("health.fusion")
    try:
        bus.wait_for(health, lambda topic, body: body["service"] == "fusion", timeout=15)
    finally:
        health.close(0)
    yield process
    process.terminate()
    assert process.wait(timeout=10) == 0


def test_bus_raw_in_fused_out_and_bad_input_isolated(bus, fusion):
    sub = bus.subscriber("location.fused.", "error.fusion")
    pub = bus.publisher()

    def send(topic, body):
        pub.send_multipart([topic.encode(), (body if isinstance(body, str) else json.dumps(body)).encode()])

    # Publish until the first fused fix arrives (the subscription may still be on its way).
    start = t = time.time()
    deadline = time.monotonic() + 15
    got = None
    while got is None and time.monotonic() < deadline:
        t += 1
        send(*raw_fix("truck-7", t, east=t - start))
        got = bus.receive(sub, timeout=0.3)
    assert got is not None, "no fused fix"
    topic, body = got
    assert topic == "location.fused.truck-7" and body["source"] == "fused" and body["device"] == "truck-7"

    # Bad input from one device is reported; the other device keeps flowing.
    send("location.raw.broken", '{"v":1,"type":"location","id":"bad-1","t":%f,"src":"t","device":"broken",'
                                '"source":"gps","lat":95,"lon":0,"hacc":5}' % t)
    bus.wait_for(sub, lambda topic, body: topic == "error.fusion", timeout=10)
    send("location.raw.broken", '{"v":1,"type":"location","id":"bad-2","t":%f,"src":"t","device":"broken",'
                                '"source":"gps","lat":1,"lon":0,"hacc":-1}' % t)
    bus.wait_for(sub, lambda topic, body: topic == "error.fusion", timeout=10)
    for _ in range(3):
        t += 1
        send(*raw_fix("truck-7", t, east=t - start))
        bus.wait_for(sub, lambda topic, body: topic == "location.fused.truck-7" and body["t"] == pytest.approx(t), timeout=10)
    sub.close(0)
    pub.close(0)
