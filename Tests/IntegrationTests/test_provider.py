"""locus-provider as a real process: --stdio output of every plugin, gpsd through gpsfake, control over a real bus."""
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

import pytest

from conftest import SHARED_DATA, bin_dir, envelope

NMEA = SHARED_DATA / "nmea"
GPX = SHARED_DATA / "gpx"


def provider(*args, stdin=None, timeout=60, env=None):
    """Runs locus-provider to completion; returns (exit code, [(topic, body)], stderr)."""
    result = subprocess.run([str(bin_dir() / "locus-provider"), *args], input=stdin, capture_output=True,
                            timeout=timeout, env=env)
    messages = []
    for line in result.stdout.decode().splitlines():
        topic, _, body = line.partition(" ")
        messages.append((topic, json.loads(body)))
    return result.returncode, messages, result.stderr.decode()


def locations(messages, topic="location.raw.local"):
    return [body for t, body in messages if t == topic]


def assert_valid_location(body, device="local"):
    assert body["type"] == "location" and body["v"] == 1
    assert body["device"] == device
    assert -90 <= body["lat"] <= 90 and -180 <= body["lon"] <= 180
    assert body["hacc"] > 0
    if "course" in body:
        assert 0 <= body["course"] < 360


# --- nmea ---------------------------------------------------------------------------------------

def test_nmea_file_stdio_gives_one_location_per_fix_in_time_order():
    code, messages, _ = provider("nmea", "--file", str(NMEA / "ublox-neo-m9n-nmea.log"), "--rate", "max", "--stdio",
                                 "--device-id", "boat")
    assert code == 0
    fixes = locations(messages, "location.raw.boat")
    assert len(fixes) > 10
    for body in fixes:
        assert_valid_location(body, "boat")
    times = [body["t"] for body in fixes]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert [body["seq"] for t, body in messages] == list(range(1, len(messages) + 1))


def test_nmea_from_stdin_equals_nmea_from_file():
    log = NMEA / "garmin48.log"
    _, from_file, _ = provider("nmea", "--file", str(log), "--rate", "max", "--stdio")
    _, from_stdin, _ = provider("nmea", "--file", "-", "--rate", "max", "--stdio", stdin=log.read_bytes())
    strip = lambda ms: [{k: v for k, v in b.items() if k != "id"} for _, b in ms]
    assert strip(from_file) == strip(from_stdin)
    assert len(from_file) > 0


def test_nmea_without_date_is_skipped_and_reported_unless_date_given():
    lines = b"$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\n" \
            b"$GPGGA,123520,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*4D\n"
    code, messages, _ = provider("nmea", "--file", "-", "--rate", "max", "--stdio", stdin=lines)
    assert code == 0
    assert locations(messages) == []
    errors = [body for topic, body in messages if topic == "error.provider"]
    assert errors and errors[0]["code"] == "noDate" and "--date" in errors[0]["message"]

    code, messages, _ = provider("nmea", "--file", "-", "--rate", "max", "--stdio", "--date", "2024-05-01", stdin=lines)
    fixes = locations(messages)
    assert [body["t"] for body in fixes] == [1714566919, 1714566920]
    assert fixes[0]["lat"] == pytest.approx(48.1173) and fixes[0]["alt"] == pytest.approx(545.4 + 46.9)


def test_nmea_no_fix_gives_no_location():
    lines = b"$GPRMC,123519,V,,,,,,,010524,,,N*7A\n$GPRMC,123520,V,,,,,,,010524,,,N*70\n"
    code, messages, _ = provider("nmea", "--file", "-", "--rate", "max", "--stdio", stdin=lines)
    assert code == 0 and locations(messages) == []


def test_nmea_bad_arguments_exit_64():
    assert provider("nmea", "--stdio")[0] == 64
    assert provider("nmea", "--file", "x", "--tcp", "h:1")[0] == 64
    assert provider("teleport")[0] == 64
    assert provider("nmea", "--file", "x", "--rate", "fast")[0] == 64


def test_nmea_realtime_pacing_follows_fix_times():
    def with_checksum(sentence):
        body = sentence[1:]
        value = 0
        for ch in body:
            value ^= ord(ch)
        return f"${body}*{value:02X}\n"
    data = "".join(with_checksum(f"$GPRMC,1200{s:02d},A,4807.038,N,01131.000,E,0.0,0.0,010524,,,A") for s in range(4))
    started = time.monotonic()
    code, messages, _ = provider("nmea", "--file", "-", "--stdio", "--speed", "4", stdin=data.encode())
    elapsed = time.monotonic() - started
    assert code == 0 and len(locations(messages)) == 4
    assert elapsed >= 0.7, f"3 s of fixes at speed 4 should take about 0.75 s, took {elapsed:.2f}"


# --- gpx ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,expected", [("cerknicko-jezero.gpx", 296), ("route.gpx", 55), ("track_with_speed.gpx", 3),
                                           ("unicode_with_bom.gpx", 1), ("track-with-extremes.gpx", 25),
                                           ("track_with_dilution_errors.gpx", 1)])
def test_gpx_replays_shared_files(name, expected):
    code, messages, _ = provider("gpx", "--file", str(GPX / name), "--rate", "max", "--stdio", "--start", "1700000000")
    assert code == 0
    fixes = locations(messages)
    assert len(fixes) == expected
    for body in fixes:
        assert_valid_location(body)
    times = [body["t"] for body in fixes]
    assert times == sorted(times)


def test_gpx_speed_field_and_interpolation():
    _, messages, _ = provider("gpx", "--file", str(GPX / "track_with_speed.gpx"), "--rate", "max", "--stdio", "--hz", "1")
    fixes = locations(messages)
    # 14:05:52 → 14:06:05 at 1 Hz: 14 fixes.
    assert [body["t"] - fixes[0]["t"] for body in fixes] == list(range(14))
    assert fixes[0]["speed"] == 1.2


def test_gpx_bad_file_reports_error_and_exits_cleanly(tmp_path):
    bad = tmp_path / "bad.gpx"
    bad.write_bytes((GPX / "route.gpx").read_bytes()[:700])
    code, messages, _ = provider("gpx", "--file", str(bad), "--rate", "max", "--stdio")
    assert code == 0
    assert locations(messages) == []
    errors = [body for topic, body in messages if topic == "error.provider"]
    assert errors and errors[0]["code"] == "badInput" and "GPX line" in errors[0]["message"]


# --- sim ----------------------------------------------------------------------------------------

def sim_args(seed):
    return ["sim", "--file", str(GPX / "cerknicko-jezero.gpx"), "--rate", "max", "--stdio", "--seed", str(seed),
            "--hacc", "8", "--bias-sigma", "2", "--outlier-rate", "0.02", "--outage", "100+30", "--cold-start", "10",
            "--wifi-hz", "0.2", "--cell-hz", "0.05", "--duration", "600"]


def test_sim_same_seed_same_output_and_all_sources_present():
    _, first, _ = provider(*sim_args(5))
    _, second, _ = provider(*sim_args(5))
    _, other, _ = provider(*sim_args(6))
    strip = lambda ms: [{k: v for k, v in b.items() if k != "id"} for _, b in ms]
    assert strip(first) == strip(second)
    assert strip(first) != strip(other)
    fixes = locations(first)
    sources = {body["source"] for body in fixes}
    assert sources == {"gps", "wifi", "cell"}
    gps = [body for body in fixes if body["source"] == "gps"]
    start = gps[0]["t"]
    assert not any(100 <= body["t"] - start < 130 for body in gps), "outage window must be empty"
    assert gps[0]["hacc"] == pytest.approx(300)


# --- fixed and exec -----------------------------------------------------------------------------

def test_fixed_publishes_count_fixes():
    code, messages, _ = provider("fixed", "--lat", "52.52", "--lon", "13.405", "--hacc", "12", "--count", "3",
                                 "--interval", "0.05", "--stdio", "--device-id", "gw")
    assert code == 0
    fixes = locations(messages, "location.raw.gw")
    assert [(b["lat"], b["lon"], b["hacc"]) for b in fixes] == [(52.52, 13.405, 12)] * 3


def test_exec_reads_nmea_and_text_form():
    log = NMEA / "garmin48.log"
    _, direct, _ = provider("nmea", "--file", str(log), "--rate", "max", "--stdio")
    _, via_exec, _ = provider("exec", "--command", f"cat {log}", "--stdio")
    positions = lambda ms: [(b["t"], b["lat"], b["lon"]) for b in locations(ms)]
    assert positions(via_exec) == positions(direct) and positions(direct)

    script = ("import json\n"
              "for i in range(3):\n"
              "    body = {'v':1,'type':'location','id':f'w{i}','t':1700000000+i,'src':'wifi/py','device':'x',"
              "'source':'wifi','lat':48.0+i*0.001,'lon':11.0,'hacc':25}\n"
              "    print('location.raw.x', json.dumps(body))\n"
              "print('motion.car', json.dumps({'v':1,'type':'motion','id':'m','t':1700000003,'src':'p','device':'car',"
              "'activity':'walking','confidence':'high'}))\n"
              "print('garbage')\n")
    code, messages, _ = provider("exec", "--command", f"{sys.executable} -c \"{script}\"", "--format", "text", "--stdio",
                                 "--device-id", "car")
    assert code == 0
    fixes = locations(messages, "location.raw.car")
    assert [b["t"] for b in fixes] == [1700000000, 1700000001, 1700000002]
    assert all(b["device"] == "car" and b["source"] == "wifi" for b in fixes)
    assert any(t == "motion.car" for t, _ in messages)
    assert any(t == "error.provider" for t, _ in messages)


# --- gpsd through gpsfake ----------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(shutil.which("gpsfake") is None, reason="gpsfake (Debian gpsd-clients) not installed")
# Cycle (seconds between sentences): fast enough to keep the test short, slow enough for gpsd to detect the receiver.
@pytest.mark.parametrize("log_name,cycle", [("ublox-neo-m9n-nmea.log", "0.01"), ("mt3339.log", "0.05")])
def test_gpsd_plugin_publishes_what_our_decoder_reads(log_name, cycle):
    log = NMEA / log_name
    _, direct, _ = provider("nmea", "--file", str(log), "--rate", "max", "--stdio")
    ours_in_order = [(round(b["lat"], 6), round(b["lon"], 6)) for b in locations(direct)]
    ours = set(ours_in_order)
    port = free_port()
    # -1: play the log once; -W 10: gpsd closes 10 s after the log ends (the default is 60 s), which ends our --once client.
    fake = subprocess.Popen(["gpsfake", "-q", "-1", "-W", "10", "-P", str(port), "-c", cycle, str(log)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        code, messages, _ = provider("gpsd", "--port", str(port), "--once", "--stdio", timeout=120)
    finally:
        if fake.poll() is None:
            fake.terminate()
            try:
                fake.wait(timeout=10)
            except subprocess.TimeoutExpired:
                fake.kill()  # gpsfake can hang in its own shutdown on a loaded machine
                fake.wait(timeout=10)
    assert code == 0
    fixes = locations(messages)
    assert len(fixes) >= 3, "gpsd plugin published too few fixes"
    theirs = {(round(b["lat"], 6), round(b["lon"], 6)) for b in fixes}
    assert theirs <= ours, f"positions gpsd reported that our decoder did not: {sorted(theirs - ours)[:5]}"
    # gpsd spends the first sentences detecting the receiver, so it may miss the first few positions;
    # from its first report on it must miss nothing (gpsfake feeds a pty, nothing is dropped).
    first = min(ours_in_order.index(position) for position in theirs)
    missing = [p for p in ours_in_order[first:] if p not in theirs]
    assert not missing, f"after its first report gpsd skipped {len(missing)} of our positions: {missing[:3]}"
    assert first <= len(ours_in_order) // 3, f"gpsd reported nothing for the first {first} of {len(ours_in_order)} positions"
    for body in fixes:
        assert_valid_location(body)


# --- control over a real bus --------------------------------------------------------------------

def test_control_pause_and_distance_filter_over_the_bus(bus):
    locations_sock = bus.subscriber("location.raw.unit", "health.provider")
    process = subprocess.Popen([str(bin_dir() / "locus-provider"), "fixed", "--lat", "48", "--lon", "11", "--interval", "0.05",
                                "--device-id", "unit", "--health-interval", "0.2"], env=bus.env, stderr=subprocess.PIPE)
    try:
        bus.wait_for(locations_sock, lambda t, b: t == "location.raw.unit")
        publisher = bus.publisher()

        def send_control(**fields):
            body = envelope("control", device="unit", **fields)
            publisher.send_multipart([b"control.unit", json.dumps(body).encode()])

        def health_says(text):
            return lambda t, b: t == "health.provider" and text in b.get("detail", {}).get("control", "")

        send_control(paused=True, reason="test")
        _, health = bus.wait_for(locations_sock, health_says("paused=true"))
        assert health["detail"]["plugin"] == "fixed"
        # Fixes come every 50 ms; after the pause is applied none may arrive in the next 0.5 s.
        deadline = time.monotonic() + 0.5
        while (message := bus.receive(locations_sock, max(0.0, deadline - time.monotonic()))) is not None:
            assert message[0] != "location.raw.unit" or message[1]["t"] < health["t"], "fix published while paused"
            if time.monotonic() >= deadline:
                break

        # Unpaused with a 50 m distance filter: the device has not moved from the last published fix,
        # so every fix is held back (Core Location's distanceFilter counts from the last delivered fix).
        send_control(paused=False, distanceFilter=50)
        _, applied = bus.wait_for(locations_sock, health_says("distanceFilter=50 desiredAccuracy=none paused=false"))
        _, later = bus.wait_for(locations_sock, lambda t, b: t == "health.provider" and b["t"] > applied["t"] + 0.5)
        assert later["counters"].get("filtered.distanceFilter", 0) >= 5
        assert later["counters"].get("controls") == 2

        send_control(distanceFilter=0)
        topic, body = bus.wait_for(locations_sock, lambda t, b: t == "location.raw.unit")
        assert body["lat"] == 48 and body["device"] == "unit"
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0
