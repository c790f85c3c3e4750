"""Fix time against arrival on a real bus: devices steadily late, early or jittery are never taken
for lost; one that really stops is dead-reckoned on its own clock; a burst of buffered fixes is
history with late geofence crossings; live NMEA with week-rollover dates is repaired, replays keep
their dates. The long test runs its devices side by side for 2 real minutes."""
import json
import math
import random
import socket
import subprocess
import time

from conftest import SHARED_DATA, bin_dir, envelope

BASE_LAT, BASE_LON = 48.10, 11.50
ROLLOVER = 1024 * 7 * 86_400


def at(east, north=0.0):
    return (BASE_LAT + north / 111_320, BASE_LON + east / (111_320 * math.cos(math.radians(BASE_LAT))))


def send(sock, topic, body):
    sock.send_multipart([topic.encode(), json.dumps(body).encode()])


def fix(device, t, east, north=0.0, hacc=5.0, **extra):
    lat, lon = at(east, north)
    return envelope("location", t=t, device=device, source="gps", lat=lat, lon=lon, hacc=hacc, **extra)


class Services:
    """Stack processes on the bus, stopped at the end."""

    def __init__(self, bus):
        self.bus = bus
        self.processes = []

    def start(self, *argv):
        self.processes.append(subprocess.Popen([str(bin_dir() / argv[0]), *argv[1:], "--health-interval", "0.5"],
                                               env=self.bus.env, stderr=subprocess.PIPE, text=True))
        return self.processes[-1]

    def wait_healthy(self, *services):
        health = self.bus.subscriber(*[f"health.{s}" for s in services])
        seen, deadline = set(), time.monotonic() + 20
        while seen != set(services) and time.monotonic() < deadline:
            message = self.bus.receive(health, 1)
            if message:
                seen.add(message[0].split(".", 1)[1])
        health.close(0)
        assert seen == set(services), f"not healthy: {set(services) - seen}"

    def stop(self):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()


def latest_health(bus, service, timeout=5):
    sock = bus.subscriber(f"health.{service}")
    try:
        return bus.wait_for(sock, lambda topic, body: True, timeout)[1]
    finally:
        sock.close(0)


def test_late_early_and_jittery_devices_for_two_minutes(bus):
    """Four devices at 1 Hz of wall time, moving at 10 m/s: 30 s late, 5 s early, ±2 s jitter —
    every real fix fused, no dr, no error — and one 30 s late that stops after a minute, then is
    dead-reckoned after its own cadence, stamped in its own time. A fifth sends one fix only."""
    services = Services(bus)
    try:
        services.start("locus-fusion")
        services.start("locus-motion")
        services.wait_healthy("fusion", "motion")
        pub = bus.publisher()
        sub = bus.subscriber("location.", "error.", "control.")
        # Fix times step by 1 s; arrival = fix time + offset. Jitter is in the arrival (a network),
        # so its fixes can overtake each other: each second sends those due in it, in arrival order.
        offsets = {"late": -30.0, "early": 5.0, "stopper": -30.0}
        sent = {device: [] for device in [*offsets, "jitter"]}
        received = []
        send(pub, "location.raw.once", fix("once", time.time(), 0, 500))
        begin, wall0 = time.monotonic(), time.time()
        jitter = sorted((k + random.uniform(-2, 2), k) for k in range(2, 118))
        stop_at = None
        for second in range(120):
            wall = time.time()
            for device, offset in offsets.items():
                if device == "stopper" and second >= 60:
                    continue
                t = round(wall + offset, 3)
                send(pub, f"location.raw.{device}", fix(device, t, 10.0 * second, speed=10.0, speedAcc=0.3, course=90.0))
                sent[device].append(t)
            while jitter and jitter[0][0] < second + 1:
                _, k = jitter.pop(0)
                t = round(wall0 + k, 3)
                send(pub, "location.raw.jitter", fix("jitter", t, 10.0 * k, speed=10.0, speedAcc=0.3, course=90.0))
                sent["jitter"].append(t)
            if second == 59:
                stop_at = time.time()
            while True:
                remaining = begin + second + 1 - time.monotonic()
                message = bus.receive(sub, remaining) if remaining > 0 else None
                if message is None:
                    break
                received.append((time.time(), *message))
        fusion = latest_health(bus, "fusion")["counters"]
        for _ in range(50):  # what is still in flight
            message = bus.receive(sub, 0.05)
            if message:
                received.append((time.time(), *message))

        errors = [(topic, body.get("code"), body.get("message")) for _, topic, body in received if topic.startswith("error.")]
        assert errors == []
        dr = {}
        for arrival, topic, body in received:
            if topic.startswith("location.raw.") and body.get("source") == "dr":
                dr.setdefault(body["device"], []).append((arrival, body["t"]))
        assert set(dr) <= {"stopper"}, {device: len(fixes) for device, fixes in dr.items()}
        fused = {}
        for _, topic, body in received:
            if topic.startswith("location.fused.") and body.get("mode") != "dr":
                fused.setdefault(body["device"], []).append(body["t"])
        # Steady devices: each real fix fused and published at its own time.
        for device in ("late", "early"):
            assert sorted(fused[device]) == sorted(sent[device]), device
        # Jitter puts fixes out of order: each older one is history and fused late into the estimate.
        published = len(fused["jitter"])
        late = [body["t"] for _, topic, body in received if topic == "location.late.jitter"]
        assert set(fused["jitter"]) <= set(sent["jitter"]) and set(late) <= set(sent["jitter"])
        assert published + len(late) == len(sent["jitter"])
        assert fusion.get("fix.fusedLate", 0) == len(late)
        assert not any(key.startswith("rejected") or key == "fix.rejectedOutlier" for key in fusion), fusion

        # The stopper: noticed after its cadence (1 s) + grace (3 s), on its clock 30 s behind the wall.
        last = sent["stopper"][-1]
        stopped = dr["stopper"]
        first_arrival, first_t = stopped[0]
        assert abs(first_t - (last + 1)) < 0.01
        assert 3 <= first_arrival - stop_at <= 12, first_arrival - stop_at
        assert all(t <= arrival - 29 for arrival, t in stopped), "dead-reckoned fixes are stamped in the device's time"
        assert len(stopped) >= 45
        print(f"2 min: late {len(fused['late'])}, early {len(fused['early'])}, jitter {published} published + {len(late)} late; "
              f"stopper dr after {first_arrival - stop_at:.1f} s, {len(stopped)} dr fixes")
    finally:
        services.stop()


def test_burst_of_buffered_fixes_is_history_with_late_crossings(bus, runtime_dir):
    """Back online: the current fix, then 300 buffered fixes from the last 5 minutes at once.
    The buffered track entered and left a region: two events with cause late, no errors."""
    services = Services(bus)
    try:
        services.start("locus-fusion")
        services.start("locus-motion")
        services.start("locus-geofence", "--default-authorization", "always", "--db", str(runtime_dir / "geofence.db"))
        services.wait_healthy("fusion", "motion", "geofence")
        pub = bus.publisher()
        sub = bus.subscriber("location.", "region.", "error.", "visit.")
        center_lat, center_lon = at(1500)
        region = {"id": "depot", "shape": {"type": "Circle", "center": [center_lon, center_lat], "radius": 150}}
        send(pub, "region.cmd", envelope("region.add", owner="ops", region=region))
        bus.wait_for(sub, lambda topic, body: body.get("type") == "region.added", timeout=10)
        now = time.time()
        # The current fix: 3 km east, outside.
        send(pub, "location.raw.phone", fix("phone", now, 3000))
        bus.wait_for(sub, lambda topic, body: topic == "location.fused.phone", timeout=10)
        # Buffered: walked east at 10 m/s from 0 to 3 km, through the depot at 1.5 km (t − 150 … t − 120 s before… ).
        for k in range(300, 0, -1):
            send(pub, "location.raw.phone", fix("phone", now - k, 3000 - 10.0 * k))
        late, events, errors = [], [], []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (len(late) < 300 or len(events) < 2):
            message = bus.receive(sub, 1)
            if message is None:
                continue
            topic, body = message
            if topic == "location.late.phone":
                late.append(body["t"])
            elif body.get("type") == "region.event":
                events.append(body)
            elif topic.startswith("error."):
                errors.append((topic, body.get("code"), body.get("message")))
        for _ in range(20):  # anything after the last expected message
            message = bus.receive(sub, 0.1)
            if message and message[0].startswith("error."):
                errors.append(message)
            elif message and message[1].get("type") == "region.event":
                events.append(message[1])
        assert errors == []
        assert late == [now - k for k in range(300, 0, -1)], "each buffered fix is history, once"
        assert [(e["event"], e["cause"]) for e in events] == [("enter", "late"), ("exit", "late")]
        # Entered 150 m before the centre (k = 165), left 150 m after it (k = 135).
        assert abs(events[0]["crossingTime"] - (now - 165)) < 2 and abs(events[1]["crossingTime"] - (now - 135)) < 2
        geofence = latest_health(bus, "geofence")["counters"]
        fusion = latest_health(bus, "fusion")["counters"]
        assert geofence.get("lateFixes") == 300 and fusion.get("lateFixes") == 300
        assert "fix.reanchored" not in fusion, "the estimate never moved back for them"
    finally:
        services.stop()


def nmea(body):
    checksum = 0
    for char in body:
        checksum ^= ord(char)
    return f"${body}*{checksum:02X}\r\n"


def epoch_sentences(t, lat, lon):
    """RMC and GGA for one epoch at Unix time t (UTC)."""
    clock = time.gmtime(t)
    hhmmss = time.strftime("%H%M%S", clock) + f".{int((t % 1) * 100):02d}"
    ddmmyy = time.strftime("%d%m%y", clock)
    lat_text = f"{int(abs(lat)):02d}{(abs(lat) % 1) * 60:07.4f},{'N' if lat >= 0 else 'S'}"
    lon_text = f"{int(abs(lon)):03d}{(abs(lon) % 1) * 60:07.4f},{'E' if lon >= 0 else 'W'}"
    return [nmea(f"GPRMC,{hhmmss},A,{lat_text},{lon_text},0.5,90.0,{ddmmyy},,,A"),
            nmea(f"GPGGA,{hhmmss},{lat_text},{lon_text},1,08,0.9,500.0,M,47.0,M,,")]


def udp_port_bound(port):
    with open("/proc/net/udp") as table:
        return any(line.split()[1].endswith(f":{port:04X}") for line in table.readlines()[1:])


def test_live_udp_feed_with_rollover_dates_is_repaired_and_reported_once(bus):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    services = Services(bus)
    sub = bus.subscriber("location.raw.old", "error.provider")
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        provider = services.start("locus-provider", "nmea", "--udp", f":{port}", "--device-id", "old")
        deadline = time.monotonic() + 30
        while not udp_port_bound(port):
            assert time.monotonic() < deadline and provider.poll() is None, "provider never bound its UDP port"
            time.sleep(0.02)
        sent_at, fixes, reports = [], [], []
        for second in range(6):
            now = time.time()
            sent_at.append(now)
            for sentence in epoch_sentences(now - ROLLOVER, *at(15.0 * second)):
                sender.sendto(sentence.encode(), ("127.0.0.1", port))
            end = time.monotonic() + 1
            while time.monotonic() < end:
                message = bus.receive(sub, max(0.0, end - time.monotonic()))
                if message is None:
                    continue
                topic, body = message
                (fixes if topic.startswith("location.") else reports).append(body)
        assert len(fixes) >= 5
        for body in fixes:
            assert min(abs(body["t"] - s) for s in sent_at) < 1, body["t"]
        assert [r["code"] for r in reports] == ["weekRollover"], reports
        assert "1024 weeks" in reports[0]["message"]
        health = latest_health(bus, "provider")
        assert health["detail"]["rollover"] == "+1024 weeks"
        assert health["counters"]["source.rolloverRepaired"] >= len(fixes) - 1
    finally:
        sender.close()
        services.stop()


def provider_times(*args):
    done = subprocess.run([str(bin_dir() / "locus-provider"), "nmea", *args, "--rate", "max", "--stdio"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    bodies = [json.loads(line.split(" ", 1)[1]) for line in done.stdout.splitlines()]
    return [b["t"] for b in bodies if b["type"] == "location"], [b for b in bodies if b["type"] == "error"]


def test_replays_keep_their_dates_unless_told(tmp_path):
    log = SHARED_DATA / "nmea" / "gpslim236.log"  # recorded 2006-07-22
    times, errors = provider_times("--file", str(log))
    assert times and all(time.gmtime(t).tm_year == 2006 for t in times) and errors == []
    # The same through fusion in a pipeline: replay time is the log's, so nothing is a clock fault.
    replay = subprocess.run([str(bin_dir() / "locus-provider"), "nmea", "--file", str(log), "--rate", "max", "--stdio"],
                            capture_output=True, text=True, timeout=60).stdout
    fused = subprocess.run([str(bin_dir() / "locus-fusion"), "--stdio"], input=replay, capture_output=True, text=True,
                           timeout=60).stdout.splitlines()
    assert fused and all(time.gmtime(json.loads(line.split(" ", 1)[1])["t"]).tm_year == 2006 for line in fused)
    assert not any(line.startswith("error.") for line in fused)
    # A log dated 1024 weeks back: kept by default, repaired when told.
    start = math.floor(time.time()) - ROLLOVER
    path = tmp_path / "rollover.log"
    path.write_text("".join(s for k in range(3) for s in epoch_sentences(start + k, *at(10.0 * k))))
    kept, _ = provider_times("--file", str(path))
    repaired, reports = provider_times("--file", str(path), "--rollover", "correct")
    assert [round(t - start, 2) for t in kept] == [0, 1, 2]
    assert [round(t - start - ROLLOVER, 2) for t in repaired] == [0, 1, 2]
    assert [r["code"] for r in reports] == ["weekRollover"]
