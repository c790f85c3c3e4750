"""locus-motion as a real process: --stdio scenarios, and the loop sim provider → fusion → motion → fusion on a real bus."""
import json
import math
import subprocess
import time

from geographiclib.geodesic import Geodesic

from conftest import bin_dir, envelope

T0 = 1_700_000_000.0
WGS84 = Geodesic.WGS84


def run_motion(tmp_path, messages, *args):
    """Runs locus-motion --stdio on text-form lines; returns (topic, body) pairs."""
    path = tmp_path / "input.txt"
    with open(path, "w") as handle:
        for topic, body in messages:
            handle.write(f"{topic} {body if isinstance(body, str) else json.dumps(body)}\n")
    with open(path) as stdin:
        done = subprocess.run([str(bin_dir() / "locus-motion"), "--stdio", *args], stdin=stdin,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [(topic, json.loads(body)) for topic, _, body in (line.partition(" ") for line in done.stdout.splitlines())]


def fused(device, t, lat, lon, hacc, **extra):
    body = envelope("location", t=t, device=device, source="fused", lat=lat, lon=lon, hacc=hacc, mode="3d")
    body.update(extra)
    return f"location.fused.{device}", body


def motion(device, t, activity, confidence="high"):
    return f"motion.{device}", envelope("motion", t=t, device=device, activity=activity, confidence=confidence)


def test_stdio_tunnel_straight_road(tmp_path):
    """15 m/s, 60 s without fixes: ≥ 30 dr fixes, truth inside for ≥ 68 %, radius never shrinking."""
    lat0, lon0, course = 48.137, 11.575, 70.0
    truth = {}
    messages = [motion("car", T0, "automotive")]
    for second in range(0, 131):
        t = T0 + second
        point = WGS84.Direct(lat0, lon0, course, 15.0 * second)
        truth[t] = (point["lat2"], point["lon2"])
        if 60 < second <= 120:
            messages.append(motion("car", t, "automotive"))
        else:
            messages.append(fused("car", t, point["lat2"], point["lon2"], 4.0, speed=15.0, speedAcc=0.3, course=course))
    out = run_motion(tmp_path, messages)
    dr = [body for topic, body in out if topic == "location.raw.car" and body["source"] == "dr"]
    assert len(dr) >= 30
    assert all(T0 + 60 < body["t"] <= T0 + 120 for body in dr)
    inside = sum(WGS84.Inverse(*truth[body["t"]], body["lat"], body["lon"])["s12"] <= body["hacc"] for body in dr)
    assert inside / len(dr) >= 0.68
    radii = [body["hacc"] for body in dr]
    assert radii == sorted(radii)
    controls = [body for topic, body in out if topic == "control.car"]
    assert [c["desiredAccuracy"] for c in controls] == [5, 2000, 5]


def test_stdio_bad_input_is_reported_and_ignored(tmp_path):
    messages = [
        ("motion.car", '{"v":1,"type":"motion","id":"x1","t":1700000000,"src":"t","device":"car","activity":"flying","confidence":"high"}'),
        motion("stranger", T0 + 1, "walking"),
        ("control.car", json.dumps(envelope("control", t=T0 + 2, device="car", powerMode="low", distanceFilter=1))),
        motion("car", T0 + 3, "walking"),
    ]
    out = run_motion(tmp_path, messages, "--devices", "car")
    errors = [body["code"] for topic, body in out if topic == "error.motion"]
    assert len(errors) == 3 and errors[1:] == ["unknownDevice", "contradictoryControl"]
    controls = [body for topic, body in out if topic.startswith("control.")]
    assert [(c["device"], c["powerMode"], c["distanceFilter"]) for c in controls] == [("car", "normal", 10)]


def test_bus_outage_is_bridged_through_fusion(bus, tmp_path):
    """sim provider with an outage → fusion → motion → fusion: no gap over 2 s, truth covered."""
    lat0, lon0, lat1, lon1 = 48.10, 11.50, 48.10, 11.53   # due east, about 2.2 km
    outage_start, outage_seconds, duration = 12, 25, 50
    timeline = tmp_path / "drive.jsonl"
    timeline.write_text('{"t": 0, "activity": "automotive"}\n')
    sub = bus.subscriber("location.fused.car", "location.raw.car", "error.")
    processes = []
    try:
        def start_process(*argv):
            processes.append(subprocess.Popen([str(bin_dir() / argv[0]), *argv[1:], "--health-interval", "0.5"],
                                              env=bus.env, stderr=subprocess.DEVNULL))
        start_process("locus-fusion")
        start_process("locus-motion")
        # Both services are subscribed once the bus reports them healthy.
        health = bus.subscriber("health.fusion", "health.motion")
        seen = set()
        deadline = time.monotonic() + 15
        while seen != {"health.fusion", "health.motion"} and time.monotonic() < deadline:
            message = bus.receive(health, 1)
            if message:
                seen.add(message[0])
        health.close(0)
        assert seen == {"health.fusion", "health.motion"}
        # Fix times must not run ahead of the wall clock motion's timers follow: start now, not later.
        start = math.floor(time.time())
        start_process("locus-provider", "motion", "--device-id", "car", "--timeline", str(timeline),
                      "--start", str(start), "--duration", str(duration))
        start_process("locus-provider", "sim", "--device-id", "car", "--waypoints", f"{lat0},{lon0};{lat1},{lon1}",
                      "--mps", "15", "--hacc", "3", "--seed", "4", "--start", str(start),
                      "--outage", f"{outage_start}+{outage_seconds}", "--duration", str(duration))
        fused_fixes, dr_times, errors = [], [], []
        deadline = time.monotonic() + duration + 20
        while time.monotonic() < deadline:
            message = bus.receive(sub, 1)
            if message is None:
                continue
            topic, body = message
            if topic == "location.fused.car":
                fused_fixes.append(body)
                if body["t"] >= start + duration - 2:
                    break
            elif topic == "location.raw.car" and body.get("source") == "dr":
                dr_times.append(body["t"] - start)
            elif topic.startswith("error."):
                errors.append((topic, body.get("code"), body.get("message")))
        azimuth = WGS84.Inverse(lat0, lon0, lat1, lon1)["azi1"]
        window = [b for b in fused_fixes if start + outage_start - 3 <= b["t"] <= start + outage_start + outage_seconds + 3]
        times = [b["t"] for b in window]
        assert times and times[0] <= start + outage_start and times[-1] >= start + outage_start + outage_seconds
        gaps = [b - a for a, b in zip(times, times[1:])]
        assert max(gaps) <= 2.0, (" ".join(f"{b['t'] - start}:{b.get('mode')}:{b['hacc']:.0f}" for b in window), dr_times, errors)
        assert len(dr_times) >= outage_seconds - 5
        during = [b for b in window if b.get("mode") == "dr"]
        assert len(during) >= 0.8 * outage_seconds
        inside = 0
        for body in during:
            truth = WGS84.Direct(lat0, lon0, azimuth, 15.0 * (body["t"] - start))
            inside += WGS84.Inverse(truth["lat2"], truth["lon2"], body["lat"], body["lon"])["s12"] <= body["hacc"]
        print(f"outage: {len(during)} fused dr fixes, coverage {100 * inside / len(during):.1f} %, max gap {max(gaps):.1f} s")
        assert inside / len(during) >= 0.68
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
