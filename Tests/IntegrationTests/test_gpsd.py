"""locus-gpsd with gpsd's own clients from Debian: gpspipe (JSON and NMEA), gpsdecode, the
python3-gps client and cgps under tmux, on a real stack (bus, locus-fusion, locus-gpsd) fed by a
drive of raw fixes; the fixes they show are compared with the fused fixes recorded on the bus."""
import json
import os
import re
import subprocess
import time

import pytest

from conftest import bin_dir
from gpsd_support import (DEVICE, Client, Drive, FusedRecorder, Processes, health, iso_ms, start_fusion,
                          start_gpsd)

SYSTEM_PYTHON = "/usr/bin/python3"  # python3-gps is a Debian package, installed for the system Python


@pytest.fixture
def processes(runtime_dir):
    group = Processes(runtime_dir)
    yield group
    group.stop()


@pytest.fixture
def stack(bus, processes, runtime_dir):
    """Fusion and locus-gpsd on a live drive; yields (port, recorder)."""
    start_fusion(processes, bus, runtime_dir)
    _, port = start_gpsd(processes, bus, "--nmea-socket", str(runtime_dir / "nmea.sock"))
    recorder = FusedRecorder(bus)
    recorder.start()
    drive = Drive(bus)
    drive.start()
    # Ready once the first fused fix went through locus-gpsd (the device is then listed).
    client = Client(port)
    client.send('?WATCH={"enable":true,"json":true};')
    client.wait_for(lambda o: o["class"] == "TPV", timeout=30)
    client.close()
    yield port, recorder
    drive.stop()
    recorder.stop()


def assert_matches_fused(recorder, time_text, lat, lon, tolerance):
    fused = recorder.at(iso_ms(time_text))
    assert abs(lat - fused["lat"]) <= tolerance and abs(lon - fused["lon"]) <= tolerance, (time_text, lat, lon, fused)
    return fused


def test_gpspipe_json_receives_version_devices_watch_and_the_fused_fixes(stack):
    port, recorder = stack
    done = subprocess.run(["gpspipe", "-w", "-n", "25", f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["class"] for o in objects[:3]] == ["VERSION", "DEVICES", "WATCH"]
    assert objects[0]["proto_major"] == 3 and objects[0]["proto_minor"] == 14
    assert [d["path"] for d in objects[1]["devices"]] == [f"locus://{DEVICE}"]
    assert objects[2] == {"class": "WATCH", "enable": True, "json": True, "nmea": False, "raw": 0, "scaled": False,
                          "timing": False, "split24": False, "pps": False}
    tpvs = [o for o in objects if o["class"] == "TPV"]
    assert len(tpvs) >= 5, objects
    for tpv in tpvs:
        assert tpv["device"] == f"locus://{DEVICE}" and tpv["mode"] == 3
        # gpsd writes 9 decimals: equal to the bus's fix to the last written digit.
        fused = assert_matches_fused(recorder, tpv["time"], tpv["lat"], tpv["lon"], 5e-10)
        assert abs(tpv["altHAE"] - fused["alt"]) < 5e-5
        assert tpv["eph"] > tpv["epx"] > 0
    assert {o["class"] for o in objects} <= {"VERSION", "DEVICES", "WATCH", "DEVICE", "TPV", "SKY", "GST"}
    sky = [o for o in objects if o["class"] == "SKY"]
    assert sky and all(s["uSat"] == 9 and s["hdop"] == 0.9 for s in sky)


def test_gpspipe_nmea_decodes_back_to_the_fused_positions(stack):
    port, recorder = stack
    done = subprocess.run(["gpspipe", "-r", "-n", "40", f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    sentences = [line for line in done.stdout.splitlines() if line.startswith("$")]
    kinds = {s[3:6] for s in sentences}
    assert kinds == {"RMC", "GGA", "GSA", "GST"}, kinds
    decoded = subprocess.run(["gpsdecode"], input="\n".join(sentences) + "\n", capture_output=True, text=True, timeout=30)
    assert decoded.returncode == 0, decoded.stderr
    tpvs = [json.loads(line) for line in decoded.stdout.splitlines() if '"class":"TPV"' in line]
    positions = [t for t in tpvs if "lat" in t and "time" in t]
    # Every complete epoch (RMC … GST) gave a position, but the first: gpsd reports an epoch once it
    # has learned which sentence ends one. gpsdecode drops sentences whose checksum is wrong.
    complete = sum(1 for s in sentences if s[3:6] == "GST")
    assert len(positions) == complete - 1 >= 5
    for tpv in positions:
        assert_matches_fused(recorder, tpv["time"], tpv["lat"], tpv["lon"], 1e-6)


def test_python_gps_client_reads_tpvs_in_a_loop(stack):
    port, recorder = stack
    script = f"""
import json, gps
session = gps.gps(host="127.0.0.1", port={port}, mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
count = 0
while count < 8:
    report = session.next()
    if report["class"] == "TPV" and getattr(report, "mode", 0) >= 2:
        print(json.dumps({{"time": report.time, "lat": report.lat, "lon": report.lon, "fix_lat": session.fix.latitude}}), flush=True)
        count += 1
"""
    done = subprocess.run([SYSTEM_PYTHON, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 8
    for row in rows:
        assert row["fix_lat"] == row["lat"]  # the client's own fix structure holds the same value
        assert_matches_fused(recorder, row["time"], row["lat"], row["lon"], 5e-10)


def test_cgps_under_tmux_shows_the_latitude(stack, runtime_dir):
    port, recorder = stack
    server = f"locus-test-{os.getpid()}"
    subprocess.run(["tmux", "-L", server, "new-session", "-d", "-x", "120", "-y", "40", f"cgps 127.0.0.1:{port}"], check=True, timeout=20)
    try:
        deadline = time.monotonic() + 30
        shown = None
        while time.monotonic() < deadline:
            screen = subprocess.run(["tmux", "-L", server, "capture-pane", "-p"], capture_output=True, text=True, timeout=10).stdout
            line = next((l for l in screen.splitlines() if "Latitude:" in l), None)
            if line and " N" in line:
                shown = float(line.split("Latitude:")[1].split()[0])
                break
            time.sleep(0.2)
        assert shown is not None, f"cgps never showed a latitude:\n{screen}"
        # cgps prints 8 decimals; the value is one of the fused fixes on the bus.
        assert any(abs(fix["lat"] - shown) <= 5e-9 for fix in recorder.all()), shown
    finally:
        subprocess.run(["tmux", "-L", server, "kill-server"], timeout=10)


def test_nmea_socket_streams_the_fused_fixes(stack, runtime_dir):
    import socket
    port, recorder = stack
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(10)
    sock.connect(str(runtime_dir / "nmea.sock"))
    data = b""
    while data.count(b"$GPGGA") < 3:
        chunk = sock.recv(4096)
        assert chunk, "NMEA socket closed"
        data += chunk
    sock.close()
    lines = [line for line in data.decode().split("\r\n") if line.startswith("$GPRMC")]
    assert lines
    for line in lines:
        fields = line.split("*")[0].split(",")
        lat = int(fields[3][:2]) + float(fields[3][2:]) / 60
        lon = int(fields[5][:3]) + float(fields[5][3:]) / 60
        hh, mm, ss = fields[1][:2], fields[1][2:4], fields[1][4:]
        day = f"20{fields[9][4:6]}-{fields[9][2:4]}-{fields[9][:2]}T{hh}:{mm}:{ss}Z"
        assert_matches_fused(recorder, day, lat, lon, 1e-8)


def test_health_counts_what_was_served(stack, bus):
    port, _ = stack
    client = Client(port)
    client.send('?WATCH={"enable":true,"json":true};')
    client.wait_for(lambda o: o["class"] == "TPV")
    counters = health(bus, predicate=lambda c: c.get("tpvSent", 0) > 0 and c.get("clients", 0) >= 1)
    assert counters["devicesServed"] == 1 and counters["fixesServed"] > 0
    client.close()


def test_help_and_bad_arguments():
    program = str(bin_dir() / "locus-gpsd")
    done = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=10)
    assert done.returncode == 0 and "--nmea-socket" in done.stdout
    for args in (["--listen", "nowhere"], ["--listen", "0.0.0.0:2947"], ["--max-devices", "0"], ["--device", "a b"],
                 ["--nmea-socket-mode", "999"]):
        done = subprocess.run([program, *args], capture_output=True, text=True, timeout=10)
        assert done.returncode == 64, (args, done.stderr)
        assert "locus-gpsd:" in done.stderr


def test_a_port_in_use_is_a_clear_error(bus, processes):
    _, port = start_gpsd(processes, bus, name="first")
    done = subprocess.run([str(bin_dir() / "locus-gpsd"), "--listen", f"127.0.0.1:{port}"], env=bus.env,
                          capture_output=True, text=True, timeout=20)
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in done.stderr


def test_stops_cleanly_and_removes_its_socket(bus, processes, runtime_dir):
    path = runtime_dir / "stop.sock"
    process, port = start_gpsd(processes, bus, "--nmea-socket", str(path))
    assert path.exists()
    client = Client(port)
    assert client.object()["class"] == "VERSION"
    process.terminate()
    assert process.wait(timeout=10) == 0
    assert not path.exists()
    with pytest.raises((ConnectionError, OSError)):
        client.line(timeout=5)


def test_locus_up_starts_it_only_when_asked(runtime_dir, processes):
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    configs = runtime_dir / "configs"
    configs.mkdir()
    (configs / "gpsd.json").write_text(json.dumps({"listen": f"127.0.0.1:{port}"}))
    env = dict(os.environ, LOCUS_PUB=f"ipc://{runtime_dir}/pub", LOCUS_SUB=f"ipc://{runtime_dir}/sub")
    up = processes.start([str(bin_dir() / "locus"), "up", "--bin", str(bin_dir()), "--only", "bus,fusion", "--with", "gpsd",
                          "--config-dir", str(configs)], env, "up")
    deadline = time.monotonic() + 30
    while True:
        try:
            client = Client(port)
            break
        except OSError:
            assert up.poll() is None and time.monotonic() < deadline, processes.log("up")
            time.sleep(0.2)
    assert client.object()["class"] == "VERSION"
    client.close()
    assert "locus-gpsd" in processes.log("up")
    up.terminate()
    assert up.wait(timeout=20) == 0
    done = subprocess.run([str(bin_dir() / "locus"), "up", "--with", "nothing"], env=env, capture_output=True, text=True, timeout=10)
    assert done.returncode == 64 and "--with takes gpsd" in done.stderr


def test_stdio_serves_fixes_read_from_stdin(processes, runtime_dir):
    """--stdio: text-form messages on stdin instead of the bus (a recorded stream served to gpsd clients)."""
    process = processes.start([str(bin_dir() / "locus-gpsd"), "--stdio", "--listen", "127.0.0.1:0"], dict(os.environ),
                              "stdio", stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 15
    while not (found := re.search(r"protocol on 127\.0\.0\.1:(\d+)", processes.log("stdio"))):
        assert process.poll() is None and time.monotonic() < deadline, processes.log("stdio")
        time.sleep(0.05)
    client = Client(int(found.group(1)))
    client.send('?WATCH={"enable":true,"json":true};')
    client.wait_for(lambda o: o["class"] == "WATCH")
    body = {"v": 1, "type": "location", "id": "s1", "t": 1_790_000_000.5, "src": "test/stdio", "seq": 1, "device": "boat",
            "source": "fused", "lat": -41.2865, "lon": 174.7762, "hacc": 7.5}
    process.stdin.write(f"location.fused.boat {json.dumps(body)}\n")
    process.stdin.flush()
    tpv = client.wait_for(lambda o: o["class"] == "TPV")
    assert (tpv["device"], tpv["mode"], tpv["time"], tpv["lat"], tpv["lon"]) == \
        ("locus://boat", 2, "2026-09-21T14:13:20.500Z", -41.2865, 174.7762)
    client.close()
