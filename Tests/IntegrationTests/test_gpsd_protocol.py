"""locus-gpsd's replies beside real gpsd's (gpsfake replaying a receiver log) for the same commands,
and its bounds: a slow reader is dropped while others keep receiving, clients past the limit are
refused, bad requests are answered, counted and reported, and --approx serves nothing precise."""
import json
import socket
import subprocess
import threading
import time

import pytest

from conftest import SHARED_DATA, envelope
from gpsd_support import Client, Processes, health, start_gpsd

# What a client sends over a session, in order: every command of the core protocol, policy changes
# that gpsd resets or keeps, and requests gpsd refuses. Paths that name no device are the same
# for both servers.
SCRIPT = [
    "?VERSION;", "?DEVICES;", "?WATCH;", '?WATCH={"enable":true}', '?WATCH={"enable":false}', '?WATCH={"json":true}\n',
    '?WATCH={"enable":true,"nmea":true,"scaled":true};', '?WATCH={"enable":false,"json":false,"nmea":false};', "?POLL;",
    "?FOO;", "?VERSION\n", '?WATCH={"enable":true,"device":"/dev/nonexistent"}', '?WATCH={"enable":false};',
    '?DEVICE={"path":"/dev/nonexistent"}', "hello\n", "?VERSION;?DEVICES;\n",
]


# The members gpsd_json(5) gives a DEVICE object.
DEVICE_MEMBERS = {"class", "path", "activated", "flags", "driver", "subtype", "subtype1", "bps", "parity", "stopbits",
                  "native", "cycle", "mincycle"}


@pytest.fixture
def processes(runtime_dir):
    group = Processes(runtime_dir)
    yield group
    group.stop()


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def converse(port, quiet=1.5):
    """Runs SCRIPT; returns per command the JSON objects answered (reports from watching left out).
    `quiet` is the silence that ends an answer: long enough for a server on a loaded machine."""
    client = Client(port)
    answers = [[client.object()]]
    for command in SCRIPT:
        client.send(command)
        objects = []
        deadline = time.monotonic() + quiet
        while time.monotonic() < deadline:
            try:
                line = client.line(timeout=max(0.01, deadline - time.monotonic()))
            except (AssertionError, TimeoutError):
                break
            if not line.startswith("{"):
                continue  # NMEA while watching it
            found = json.loads(line)
            if found["class"] not in ("TPV", "SKY", "GST", "DEVICE") or command.startswith("?DEVICE="):
                objects.append(found)
        answers.append(objects)
    client.close()
    return answers


def test_replies_match_real_gpsd_for_the_same_commands(bus, processes, runtime_dir):
    """gpsd 3.22 (through gpsfake, replaying a u-blox log) and locus-gpsd answer the same session with
    the same objects in the same order: WATCH and ERROR objects equal, VERSION and DEVICES the same shape."""
    gpsd_port = free_port()
    log = SHARED_DATA / "nmea" / "ublox-neo-m9n-nmea.log"
    processes.start(["gpsfake", "-q", "-n", "-c", "0.2", "-P", str(gpsd_port), str(log)], None, "gpsfake",
                    stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            probe = Client(gpsd_port)
            probe.object()
            probe.close()
            break
        except (ConnectionError, OSError, AssertionError):
            assert time.monotonic() < deadline, "gpsfake's gpsd did not start"
            time.sleep(0.2)
    _, port = start_gpsd(processes, bus, "--device", "car")
    real, ours = converse(gpsd_port), converse(port)
    assert len(real) == len(ours) == len(SCRIPT) + 1
    for command, theirs, mine in zip(["(connect)"] + SCRIPT, real, ours):
        assert [o["class"] for o in mine] == [o["class"] for o in theirs], (command, theirs, mine)
        for a, b in zip(theirs, mine):
            if a["class"] in ("WATCH", "ERROR"):
                assert b == a, (command, a, b)
            elif a["class"] == "VERSION":
                assert (b["release"], b["proto_major"], b["proto_minor"]) == (a["release"], a["proto_major"], a["proto_minor"])
            elif a["class"] == "DEVICES":
                assert len(b["devices"]) == 1
                assert set(b["devices"][0]) <= DEVICE_MEMBERS and {"class", "path", "driver"} <= set(b["devices"][0]), b
                assert set(a["devices"][0]) <= DEVICE_MEMBERS, a
            elif a["class"] == "POLL":
                assert set(b) == set(a) and b["active"] == a["active"] == 0


def publish_fused(sock, device, lat, lon, t=None, **extra):
    body = envelope("location", t=t, device=device, source="fused", lat=lat, lon=lon, hacc=5.0, **extra)
    sock.send_multipart([f"location.fused.{device}".encode(), json.dumps(body).encode()])


def test_a_slow_reader_is_dropped_while_others_keep_receiving(bus, processes):
    _, port = start_gpsd(processes, bus, "--max-queue-bytes", "16384")
    publisher = bus.publisher()
    publish_fused(publisher, "car", 10.0, 20.0)
    slow = Client(port, receive_buffer=2048)
    slow.send('?WATCH={"enable":true,"json":true,"nmea":true};')
    good = Client(port)
    good.send('?WATCH={"enable":true,"json":true};')
    good.wait_for(lambda o: o["class"] == "TPV")

    def flood():
        t0 = time.time()
        for index in range(1, 4001):
            publish_fused(publisher, "car", 10.0 + index * 1e-6, 20.0, t=t0 + index * 0.001)
            if index % 10 == 0:
                time.sleep(0.02)  # 500 fixes/s: a reader that reads keeps up, one that does not falls behind

    sender = threading.Thread(target=flood)
    sender.start()
    last = good.wait_for(lambda o: o["class"] == "TPV" and abs(o["lat"] - (10.0 + 4000e-6)) < 1e-9, timeout=60)
    sender.join()
    assert last["device"] == "locus://car"
    counters = health(bus, predicate=lambda c: c.get("slowClientsDropped", 0) >= 1, timeout=20)
    assert counters["clients"] == 1
    assert closed_by_server(slow)
    publisher.close(0)


def closed_by_server(client, timeout=20.0):
    """Reads (and discards) until the server closes the connection; False on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        client.sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            if not client.sock.recv(65536):
                return True
        except socket.timeout:
            return False
        except ConnectionResetError:
            return True
    return False


def test_clients_past_the_limit_are_refused(bus, processes):
    _, port = start_gpsd(processes, bus, "--max-clients", "2")
    first, second = Client(port), Client(port)
    assert first.object()["class"] == second.object()["class"] == "VERSION"
    third = Client(port)
    with pytest.raises(ConnectionError):
        third.line(timeout=10)
    counters = health(bus, predicate=lambda c: c.get("refusedBusy", 0) >= 1)
    assert counters["clients"] == 2
    first.close()
    # A place freed is a place taken.
    deadline = time.monotonic() + 10
    while True:
        try:
            fourth = Client(port)
            assert fourth.object()["class"] == "VERSION"
            break
        except ConnectionError:
            assert time.monotonic() < deadline
            time.sleep(0.1)


def test_bad_requests_are_answered_counted_and_reported(bus, processes):
    errors = bus.subscriber("error.gpsd")
    _, port = start_gpsd(processes, bus, "--device", "car")
    client = Client(port)
    client.object()
    client.send('?WATCH={"enable":yes}\n')
    assert client.object() == {"class": "ERROR", "message": "Invalid WATCH: \"enable\" has no valid value"}
    assert client.object()["class"] == "DEVICES"
    assert client.object()["class"] == "WATCH"
    _, body = bus.wait_for(errors, lambda topic, body: body["code"] == "badRequest", timeout=10)
    assert "Invalid WATCH" in body["message"]
    client.send('?WATCH={"device":"' + "x" * 5000)  # an object that never ends
    assert client.object() == {"class": "ERROR", "message": "request longer than 4096 bytes"}
    with pytest.raises(ConnectionError):
        client.line(timeout=10)
    counters = health(bus, predicate=lambda c: c.get("oversizedRequests", 0) == 1 and c.get("badRequests", 0) == 1)
    assert counters["clients"] == 0
    # Still serving.
    assert Client(port).object()["class"] == "VERSION"


def test_approx_serves_only_the_reduced_stream(bus, processes):
    _, port = start_gpsd(processes, bus, "--approx")
    client = Client(port)
    client.send('?WATCH={"enable":true,"json":true,"nmea":true};')
    client.wait_for(lambda o: o["class"] == "WATCH")
    publisher = bus.publisher()
    seen = []
    for step in range(20):
        t = time.time()
        publish_fused(publisher, "car", 31.2304 + step * 1e-5, 121.4737, t=t)
        raw = envelope("location", t=t, device="car", source="gps", lat=31.2304 + step * 1e-5, lon=121.4737, hacc=3.0, sats=8)
        publisher.send_multipart([b"location.raw.car", json.dumps(raw).encode()])
        approx = envelope("location", t=t, device="car", source="fused", lat=31.23, lon=121.48, hacc=1800.0, mode="approx")
        publisher.send_multipart([b"location.approx.car", json.dumps(approx).encode()])
        time.sleep(0.05)
    deadline = time.monotonic() + 10
    def count(kind):
        return sum(1 for o in seen if (o.get("class") if isinstance(o, dict) else o[:6]) == kind)

    while (count("TPV") < 20 or count("$GPGST") < 20) and time.monotonic() < deadline:
        line = client.line(timeout=10)
        seen.append(json.loads(line) if line.startswith("{") else line)
    tpvs = [o for o in seen if isinstance(o, dict) and o["class"] == "TPV"]
    assert len(tpvs) == 20
    assert all(o["lat"] == 31.23 and o["lon"] == 121.48 and o["mode"] == 2 for o in tpvs)
    assert not any(isinstance(o, dict) and o["class"] == "SKY" for o in seen)
    sentences = [line for line in seen if isinstance(line, str) and line.startswith("$GPGGA")]
    assert len(sentences) == 20 and all(",3113.8000000,N,12128.8000000,E," in line for line in sentences)
    publisher.close(0)
