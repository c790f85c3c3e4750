"""locus map's HTTP side as a real process: bad requests are refused cleanly, a slow client is
dropped while others keep streaming, and a reduced viewer never receives a fused location."""
import json
import socket
import subprocess
import time

from conftest import envelope
from test_map_browser import processes, start_map  # noqa: F401  (fixture re-exported)


def address(url):
    hostport = url[len("http://"):].rstrip("/")
    host, _, port = hostport.partition(":")
    return host, int(port)


def request(url, raw, timeout=10.0):
    """Sends raw bytes, returns everything the server sent before closing."""
    with socket.create_connection(address(url), timeout=timeout) as sock:
        sock.sendall(raw)
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return data
            data += chunk


def status(response):
    return int(response.split(b" ", 2)[1])


class EventStream:
    """A raw SSE reader: (kind, body) pairs, with a deadline on each read."""

    def __init__(self, url, receive_buffer=None):
        self.sock = socket.socket()
        if receive_buffer:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(10)
        self.sock.connect(address(url))
        self.sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        self.buffer = b""

    def head(self):
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(4096)
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        return head

    def next_event(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while True:
            while b"\n\n" in self.buffer:
                block, _, self.buffer = self.buffer.partition(b"\n\n")
                fields = dict(line.split(b": ", 1) for line in block.split(b"\n") if b": " in line and not line.startswith(b":"))
                if b"event" in fields:
                    return fields[b"event"].decode(), json.loads(fields[b"data"])
            remaining = deadline - time.monotonic()
            assert remaining > 0, "no event in time"
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(65536)
            assert chunk, "stream closed"
            self.buffer += chunk

    def wait_for(self, predicate, timeout=10.0):
        deadline = time.monotonic() + timeout
        while True:
            kind, body = self.next_event(max(0.01, deadline - time.monotonic()))
            if predicate(kind, body):
                return kind, body

    def close(self):
        self.sock.close()


def test_bad_requests_are_refused_cleanly(bus, processes):
    url = start_map(processes, bus, "--request-timeout", "1", "--max-connections", "8")
    ok = request(url, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert status(ok) == 200 and b"<svg id=\"map\"" in ok and b"Content-Security-Policy: default-src 'self'" in ok
    assert status(request(url, b"GET /etc/passwd HTTP/1.1\r\nHost: localhost\r\n\r\n")) == 404
    assert status(request(url, b"GET /../map.js HTTP/1.1\r\nHost: localhost\r\n\r\n")) == 404
    assert status(request(url, b"POST /events HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\nhi")) == 405
    assert status(request(url, b"GET / HTTP/1.1\r\nHost: attacker.example\r\n\r\n")) == 421
    assert status(request(url, b"NONSENSE\r\n\r\n")) == 400
    huge = b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Pad: " + b"a" * 20000 + b"\r\n\r\n"
    assert status(request(url, huge)) == 431
    # A client that never finishes its request is answered 408 after the timeout, not kept.
    started = time.monotonic()
    assert status(request(url, b"GET / HTTP/1.1\r\nHost: loc")) == 408
    assert 0.9 < time.monotonic() - started < 5
    # Beyond --max-connections, new connections get 503 at once; the open ones are unharmed.
    idle = [socket.create_connection(address(url)) for _ in range(8)]
    try:
        deadline = time.monotonic() + 5
        refused = None
        while refused is None and time.monotonic() < deadline:
            answer = request(url, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
            refused = answer if status(answer) == 503 else None
        assert refused is not None, "ninth connection was not refused"
    finally:
        for sock in idle:
            sock.close()
    # Once they are gone (closed or timed out), the page is served again.
    deadline = time.monotonic() + 5
    while status(request(url, b"GET /map.js HTTP/1.1\r\nHost: localhost\r\n\r\n")) != 200:
        assert time.monotonic() < deadline


def test_slow_client_is_dropped_and_never_stalls_the_others(bus, processes):
    url = start_map(processes, bus, "--max-queue-bytes", "65536")
    slow = EventStream(url, receive_buffer=4096)
    fast = EventStream(url)
    assert b" 200 " in slow.head() and b"text/event-stream" in fast.head()
    publisher = bus.publisher()
    padding = "x" * 400
    # Enough to overflow the slow client's queue and socket buffers many times over.
    for i in range(20000):
        body = envelope("health", service="load", state="ok", counters={"i": i}, note=padding)
        publisher.send_multipart([b"health.load", json.dumps(body).encode()])
        if i % 500 == 0:
            # The fast reader keeps up and sees the stream live.
            fast.wait_for(lambda kind, b, i=i: kind == "health" and b.get("counters", {}).get("i") == i, timeout=10)
    fast.wait_for(lambda kind, b: kind == "health" and b.get("counters", {}).get("i") == 19999, timeout=20)
    # The slow one was disconnected: draining it ends in EOF well before 20000 events.
    slow.sock.settimeout(10)
    received = 0
    while True:
        chunk = slow.sock.recv(65536)
        if not chunk:
            break
        received += len(chunk)
    assert received < 20000 * 400
    slow.close()
    fast.close()


def test_reduced_viewer_sees_only_the_approximate_stream(bus, processes):
    url = start_map(processes, bus, "--client-accuracy", "reduced")
    stream = EventStream(url)
    stream.head()
    publisher = bus.publisher()
    # The map subscribes to the bus after it prints its URL. A cached topic reaches it either live
    # or replayed when its subscription arrives, so once the probe is on the stream, so is the map.
    probe = envelope("location", device="probe", source="fused", mode="approx", lat=1.0, lon=1.0, hacc=1767.0)
    publisher.send_multipart([b"location.approx.probe", json.dumps(probe).encode()])
    stream.wait_for(lambda k, b: k == "location" and b["id"] == probe["id"])
    fine = envelope("location", device="car", source="fused", lat=31.2291234, lon=121.4712345, hacc=4.0, tier="high")
    coarse = envelope("location", device="car", source="fused", mode="approx", lat=31.23, lon=121.47, hacc=1767.0)
    event = envelope("region.event", owner="test", regionId="store", device="car", event="enter", state="inside",
                     cause="crossing", location={"lat": 31.2291234, "lon": 121.4712345, "hacc": 4.0, "t": time.time()})
    publisher.send_multipart([b"location.fused.car", json.dumps(fine).encode()])
    publisher.send_multipart([b"location.approx.car", json.dumps(coarse).encode()])
    publisher.send_multipart([b"region.event.test", json.dumps(event).encode()])
    received = []
    stream.wait_for(lambda k, b: received.append((k, b)) or k == "regionEvent")
    locations = [b for k, b in received if k == "location" and b["device"] == "car"]
    assert [b["id"] for b in locations] == [coarse["id"]]
    body = received[-1][1]
    assert body["approximate"] is True and "crossingTime" not in body
    assert body["location"] == {"lat": 31.23, "lon": 121.47, "hacc": 1767.0, "t": coarse["t"]}
    # The fine fix never arrives: a page opened now replays only the approximate one.
    late = EventStream(url)
    late.head()
    replayed = []
    late.wait_for(lambda k, b: replayed.append((k, b)) or k == "regionEvent")
    assert [b["id"] for k, b in replayed if k == "location" and b["device"] == "car"] == [coarse["id"]]
    assert "31.2291234" not in json.dumps(received + replayed)
    stream.close()
    late.close()
