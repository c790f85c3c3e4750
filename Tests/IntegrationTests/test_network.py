"""Network positioning as real processes: the wifi and cell plugins reading real tool output
formats (fixtures), learning from fused fixes on a real bus, the cell import, bad input, and a
cold start through bus, GNSS provider, network plugin and fusion."""
import json
import os
import sqlite3
import stat
import subprocess
import threading
import time

import pytest

from conftest import REPO, bin_dir, envelope, stop_process

FIXTURES = REPO / "Tests" / "LocusProviderTests" / "Fixtures" / "network"
HERE = (52.52, 13.405)  # where the learning fixture's fused fixes say the device is


def provider(*args, stdin=None, timeout=60, env=None):
    """Runs locus-provider to completion; returns (exit code, [(topic, body)], stderr)."""
    result = subprocess.run([str(bin_dir() / "locus-provider"), *args], input=stdin, capture_output=True, timeout=timeout, env=env)
    messages = []
    for line in result.stdout.decode().splitlines():
        topic, _, body = line.partition(" ")
        messages.append((topic, json.loads(body)))
    return result.returncode, messages, result.stderr.decode()


def beacons(*args, stdin=None, timeout=120):
    return subprocess.run([str(bin_dir() / "locus"), "beacons", *args], input=stdin, capture_output=True, text=True, timeout=timeout)


def fused(device, lat, lon, hacc=4.0, mode="3d"):
    return envelope("location", device=device, source="fused", lat=lat, lon=lon, hacc=hacc, mode=mode)




def learn(bus, database, scan_file, device="learner", extra=()):
    """Runs the wifi plugin on `scan_file` while fused fixes at HERE arrive on the bus, until it
    has learned from three scans; returns the last health message."""
    health = bus.subscriber("health.provider")
    process = subprocess.Popen([str(bin_dir() / "locus-provider"), "wifi", "--command", f"cat {scan_file}", "--scan-interval", "0.5",
                                "--db", str(database), "--device-id", device, "--health-interval", "0.3", *extra],
                               env=bus.env, stderr=subprocess.PIPE)
    publisher = bus.publisher()
    done = threading.Event()

    def feed():
        while not done.is_set():
            body = fused(device, *HERE)
            publisher.send_multipart([f"location.fused.{device}".encode(), json.dumps(body).encode()])
            done.wait(0.2)

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        _, last = bus.wait_for(health, lambda t, b: b["detail"].get("device") == device
                               and (b["counters"].get("source.learnedScans", 0) >= 3 or b["counters"].get("source.heldBack", 0) >= 3),
                               timeout=30)
        return last
    finally:
        done.set()
        feeder.join()
        stop_process(process)
        publisher.close(0)
        health.close(0)


@pytest.fixture
def learned_db(bus, runtime_dir):
    database = runtime_dir / "beacons" / "learned.db"
    last = learn(bus, database, FIXTURES / "iw-scan.txt")
    assert last["counters"]["source.learnedScans"] >= 3
    return database


def test_learning_over_the_bus_stores_only_bssids_in_a_private_file(learned_db):
    assert stat.S_IMODE(os.stat(learned_db).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(learned_db.parent).st_mode) == 0o700
    with sqlite3.connect(f"file:{learned_db}?mode=ro", uri=True) as db:
        stored = sorted(row[0] for row in db.execute("SELECT bssid FROM wifi"))
        columns = [row[1] for row in db.execute("PRAGMA table_info(wifi)")]
    # iw-scan.txt: six access points; one says _nomap, one has a locally administered address,
    # one was last heard 31 s before the scan. Three are stored, by address only.
    assert stored == sorted(int(mac.replace(":", ""), 16) for mac in ["3c:a6:2f:1b:22:10", "44:4e:6d:80:5c:c1", "00:1f:3f:aa:01:02"])
    assert columns == ["bssid", "lat", "lon", "radius", "weight", "samples", "moves", "updated"]
    raw = b"".join(path.read_bytes() for path in learned_db.parent.iterdir())
    for text in [b"FRITZ", b"Nachbarn", b"nomap", b"Pixel", b"Caf"]:
        assert text not in raw


def test_wifi_plugin_reads_each_tool_format_and_places_the_device(learned_db, tmp_path):
    now = time.time()
    iw = (FIXTURES / "iw-scan.txt").read_text()
    nmcli = (FIXTURES / "nmcli-wifi-list.txt").read_text()
    log = tmp_path / "scans.log"
    log.write_text(f"# scan {now:.1f}\n{iw}# scan {now + 1:.1f}\n{nmcli}")
    code, messages, stderr = provider("wifi", "--file", str(log), "--db", str(learned_db), "--no-learn", "--stdio", "--rate", "max")
    assert code == 0, stderr
    fixes = [body for topic, body in messages if topic == "location.raw.local"]
    assert [round(body["t"], 1) for body in fixes] == [round(now, 1), round(now + 1, 1)]
    for body in fixes:
        assert body["source"] == "wifi" and body["mode"] == "approx"
        assert abs(body["lat"] - HERE[0]) < 0.0005 and abs(body["lon"] - HERE[1]) < 0.0005
        assert 10 <= body["hacc"] < 200


def test_no_learn_never_writes_and_good_fixes_hold_network_fixes_back(bus, learned_db, tmp_path):
    scan = tmp_path / "new-ap.txt"
    scan.write_text((FIXTURES / "iw-scan.txt").read_text().replace("3c:a6:2f:1b:22:10", "3c:a6:2f:1b:22:99"))
    before = learned_db.read_bytes()
    last = learn(bus, learned_db, scan, device="readonly", extra=("--no-learn",))
    assert last["counters"].get("source.learnedScans", 0) == 0
    assert last["counters"]["source.heldBack"] >= 3
    with sqlite3.connect(f"file:{learned_db}?mode=ro", uri=True) as db:
        assert db.execute("SELECT count(*) FROM wifi WHERE bssid = ?", (int("3ca62f1b2299", 16),)).fetchone()[0] == 0
    assert learned_db.read_bytes() == before


def test_cell_plugin_on_an_imported_opencellid_export(tmp_path):
    database = tmp_path / "cells.db"
    done = beacons("import-cells", "--db", str(database), "--mcc", "262,234", str(FIXTURES / "opencellid-sample.csv"))
    assert done.returncode == 0, done.stderr
    assert "imported 4 of 7 rows" in done.stdout and "3 of other MCCs" in done.stdout
    assert stat.S_IMODE(os.stat(database).st_mode) == 0o600
    stats = beacons("stats", "--db", str(database))
    assert "0 access points, 4 cells" in stats.stdout
    log = tmp_path / "cells.log"
    log.write_text("# scan 1700000000\n" + (FIXTURES / "mmcli-location-old.txt").read_text()
                   + "# scan 1700000030\n" + (FIXTURES / "mmcli-location-keyvalue.txt").read_text())
    code, messages, stderr = provider("cell", "--file", str(log), "--db", str(database), "--no-learn", "--stdio", "--rate", "max",
                                      "--device-id", "modem")
    assert code == 0, stderr
    fixes = [body for topic, body in messages if topic == "location.raw.modem"]
    assert len(fixes) == 2
    assert fixes[0]["source"] == "cell" and fixes[0]["lat"] == pytest.approx(52.520008) and fixes[0]["lon"] == pytest.approx(13.405023)
    assert 300 < fixes[0]["hacc"] < 1500
    assert fixes[1]["lat"] == pytest.approx(51.507351) and fixes[1]["lon"] == pytest.approx(-0.127758)


def test_bad_scans_are_reported_and_the_good_ones_still_placed(learned_db, tmp_path):
    iw = (FIXTURES / "iw-scan.txt").read_text()
    records = [
        "command failed: Operation not permitted (-1)\n",
        "<html>captive portal</html>\n",
        iw[:iw.index("44:4e")] [:40] + "\n",  # cut inside the first block
        (FIXTURES / "mmcli-location-human.txt").read_text(),
        "BSS 3c:a6:2f:1b:22:1",  # truncated address, no newline before the next marker
        iw,
    ]
    log = tmp_path / "bad.log"
    log.write_text("".join(f"# scan {1_700_000_000 + index}\n{text}" for index, text in enumerate(records)))
    code, messages, stderr = provider("wifi", "--file", str(log), "--db", str(learned_db), "--no-learn", "--stdio", "--rate", "max")
    assert code == 0, stderr
    errors = [body for topic, body in messages if topic == "error.provider"]
    texts = [error["message"] for error in errors]
    assert all(error["code"] == "badInput" for error in errors), errors
    assert any("Operation not permitted" in text for text in texts)
    assert any("not the output of iw scan" in text and "captive portal" in text for text in texts)
    assert any("mmcli output; use locus-provider cell" in text for text in texts)
    assert any("without one readable access point" in text for text in texts)
    fixes = [body for topic, body in messages if topic == "location.raw.local"]
    # The truncated first block still names a known access point; the full scan places the device.
    assert [body["t"] for body in fixes][-1] == 1_700_000_005
    assert all(abs(body["lat"] - HERE[0]) < 0.0005 for body in fixes)


def test_a_missing_database_with_no_learn_is_a_clear_error(tmp_path):
    log = tmp_path / "scan.log"
    log.write_text((FIXTURES / "iw-scan.txt").read_text())
    code, messages, stderr = provider("wifi", "--file", str(log), "--db", str(tmp_path / "none.db"), "--no-learn", "--stdio")
    assert code == 0
    errors = [body for topic, body in messages if topic == "error.provider"]
    assert errors and errors[0]["code"] == "sourceFailed" and "no beacon database" in errors[0]["message"]
    assert not (tmp_path / "none.db").exists()


@pytest.mark.parametrize("args", [["wifi"], ["wifi", "--command", "true", "--file", "-"], ["cell", "--command", "x", "--scan-interval", "0"],
                                  ["wifi", "--file", "-", "--learn-hacc", "-3"]])
def test_network_plugin_bad_arguments_exit_64(args):
    code, _, stderr = provider(*args)
    assert code == 64, stderr
    assert "locus-provider:" in stderr


def test_import_skips_a_two_gigabyte_line_streamed_through_stdin(tmp_path):
    database = tmp_path / "cells.db"
    out_path, err_path = tmp_path / "out.txt", tmp_path / "err.txt"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        process = subprocess.Popen([str(bin_dir() / "locus"), "beacons", "import-cells", "--db", str(database), "-"],
                                   stdin=subprocess.PIPE, stdout=out, stderr=err)
        chunk = b"7" * (1 << 20)
        process.stdin.write(b"radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal\n")
        process.stdin.write(b"GSM,262,1,21004,4437,0,13.405023,52.520008,1500,23,1,1,1,0\n")
        for _ in range(2048):  # 2 GiB in one line, never on disk
            process.stdin.write(chunk)
        process.stdin.write(b"\nLTE,262,2,41394,27409348,133,NaN,52.516275,900,51,1,1,1,0\n")
        process.stdin.write(b"LTE,262,2,41394,27409349,133,13.377704,52.516275,900,51,1,1,1,0\n")
        process.stdin.close()
        assert process.wait(timeout=300) == 0, err_path.read_text()
    output, errors = out_path.read_text(), err_path.read_text()
    assert "imported 2 of 4 rows" in output and "2 rejected (1 overlong lines)" in output, output
    assert "line 3: longer than 4096 bytes; skipped" in errors
    assert "line 4: lon 'NaN' is not a number" in errors


def test_cold_start_cache_then_network_then_gnss(bus, learned_db, tmp_path):
    """The stack starts cold: fusion republishes yesterday's cached location, the wifi plugin
    places the device within 2 s, and GNSS (30 s to its first fix) refines it to ≤ 10 m."""
    device = "phone"
    state = tmp_path / "state"
    cached = envelope("location", t=time.time() - 600, device=device, source="gps", lat=HERE[0] + 0.02, lon=HERE[1], hacc=5.0)
    primed = subprocess.run([str(bin_dir() / "locus-fusion"), "--stdio", "--state", str(state)],
                            input=f"location.raw.{device} {json.dumps(cached)}\n", capture_output=True, text=True, timeout=30)
    assert primed.returncode == 0, primed.stderr
    sock = bus.subscriber(f"location.fused.{device}")
    started = time.time()
    processes = [
        subprocess.Popen([str(bin_dir() / "locus-fusion"), "--state", str(state)], env=bus.env, stderr=subprocess.DEVNULL),
        subprocess.Popen([str(bin_dir() / "locus-provider"), "sim", "--waypoints", f"{HERE[0]},{HERE[1]};{HERE[0]},{HERE[1]}",
                          "--duration", "120", "--outage", "0+30", "--hacc", "3", "--device-id", device], env=bus.env, stderr=subprocess.DEVNULL),
        subprocess.Popen([str(bin_dir() / "locus-provider"), "wifi", "--command", f"cat {FIXTURES / 'iw-scan.txt'}", "--scan-interval", "2",
                          "--db", str(learned_db), "--no-learn", "--device-id", device], env=bus.env, stderr=subprocess.DEVNULL),
    ]
    try:
        seen = []
        first_network = first_fine = None
        deadline = started + 60
        while first_fine is None and time.time() < deadline:
            message = bus.receive(sock, deadline - time.time())
            if message is None:
                break
            _, body = message
            arrived = time.time() - started
            seen.append((round(arrived, 2), body["mode"], round(body["hacc"], 1)))
            if first_network is None and body["mode"] != "cache" and body["hacc"] <= 100:
                first_network = arrived
            if body["mode"] in ("2d", "3d") and body["hacc"] <= 10:
                first_fine = arrived
        print(f"\ncold start: first fused fix with hacc <= 100 m after {first_network:.2f} s, first <= 10 m after {first_fine:.2f} s")
        print("fused stream (s after start, mode, hacc):", seen[:6], "...", seen[-3:])
        assert seen[0][1] == "cache", seen[:3]
        assert first_network is not None and first_network <= 2.0, seen[:5]
        assert [mode for _, mode, _ in seen[1:3]] == ["approx", "approx"]
        assert first_fine is not None and 29 <= first_fine <= 40, seen[-5:]
    finally:
        for process in processes:
            stop_process(process)
