"""Restart recovery: state survives kill -9 and the first fix after it reports a missed
transition once, with cause `recovered`."""
import json
import os
import signal
import subprocess
import tempfile

from conftest import bin_dir
from geofence_support import STORE, T0, Script, events, parse, run_stdio, walk


def start(db):
    return subprocess.Popen([str(bin_dir() / "locus-geofence"), "--stdio", "--default-authorization", "always", "--db", db],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)


def read_until(process, predicate):
    """Reads output lines until one satisfies predicate; returns it (fails at end of output)."""
    while True:
        line = process.stdout.readline()
        assert line, "the service ended before the expected message"
        topic, body = line.split(" ", 1)
        body = json.loads(body)
        if predicate(topic, body):
            return body


def test_kill_9_between_fixes_then_missed_exit_is_recovered_once(tmp_path):
    db = str(tmp_path / "geofence.db")
    script = Script()
    script.circle("shop", "store", STORE[0], STORE[1], 200, T0)
    inbound = walk((31.2280, 121.4700), STORE, 1.4, T0 + 1)
    for t, lat, lon in inbound:
        script.fix("walker", t, lat, lon)
    process = start(db)
    for line in script.lines:
        process.stdin.write(line + "\n")
    process.stdin.flush()
    enter = read_until(process, lambda topic, body: body.get("event") == "enter")
    assert enter["cause"] == "crossing"
    # One more fix still inside, answered by nothing, then the process dies without warning.
    last_t = inbound[-1][0]
    probe = Script()
    probe.counter = 10_000
    probe.fix("walker", last_t + 1, STORE[0], STORE[1])
    probe.request_state("shop", last_t + 1, regionId="store")
    process.stdin.write(probe.text())
    process.stdin.flush()
    read_until(process, lambda topic, body: body.get("event") == "state")
    process.send_signal(signal.SIGKILL)
    process.wait()

    # While it was down the walker left. After the restart: one exit, cause recovered.
    after = Script()
    after.counter = 20_000
    t = last_t + 600
    for i in range(30):
        after.fix("walker", t + i, 31.2280, 121.4700)
    status, out, _ = run_stdio(after, "--db", db)
    assert status == 0
    found = events(out)
    assert [(e["event"], e["cause"]) for e in found] == [("exit", "recovered")]
    assert found[0]["location"]["t"] == t
    assert "crossingTime" not in found[0]

    # A second restart has nothing left to report.
    again = Script()
    again.counter = 30_000
    for i in range(10):
        again.fix("walker", t + 100 + i, 31.2280, 121.4700)
    again.request_state("shop", t + 200)
    status, out, _ = run_stdio(again, "--db", db)
    assert status == 0
    assert [e["event"] for e in events(out)] == ["state"]
    assert events(out)[0]["state"] == "outside"


def test_restart_while_still_inside_repeats_nothing(tmp_path):
    db = str(tmp_path / "geofence.db")
    script = Script()
    script.circle("shop", "store", STORE[0], STORE[1], 200, T0, dwell=30)
    for t, lat, lon in walk((31.2280, 121.4700), STORE, 1.4, T0 + 1):
        script.fix("walker", t, lat, lon)
    _, out, _ = run_stdio(script, "--db", db)
    assert [e["event"] for e in events(out)] == ["enter", "dwell"]
    later = Script()
    later.counter = 50_000
    for i in range(60):
        later.fix("walker", T0 + 1000 + i, STORE[0], STORE[1])
    later.request_state("shop", T0 + 1100)
    status, out, _ = run_stdio(later, "--db", db)
    assert status == 0
    assert [(e["event"], e["state"]) for e in events(out)] == [("state", "inside")]
    # Regions came back from the database too.
    listing = Script()
    listing.counter = 60_000
    listing.add("region.cmd", "region.list", T0 + 2000, owner="shop")
    _, out, _ = run_stdio(listing, "--db", db)
    replies = [b for t, b in out if b["type"] == "region.list"]
    assert [r["id"] for r in replies[0]["regions"]] == ["store"]
