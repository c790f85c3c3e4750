"""Helpers for the locus-gpsd tests: a real stack (bus, locus-fusion, locus-gpsd), a drive of raw
fixes published from a thread, a recorder of the fused fixes on the bus, and gpsd-protocol clients."""
import datetime
import json
import os
import re
import socket
import subprocess
import threading
import time

import zmq

from conftest import bin_dir, stop_process

DEVICE = "car"
START = (31.2304, 121.4737)


def iso_ms(text):
    """gpsd's ISO 8601 time -> integer milliseconds since the epoch."""
    moment = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return round(moment.timestamp() * 1000)


class Processes:
    """Started processes, stopped (SIGTERM, then SIGKILL) at the end of a test; stderr kept in files."""

    def __init__(self, directory):
        self.directory = directory
        self.items = []

    def start(self, argv, env, name, **kwargs):
        log = open(self.directory / f"{name}.log", "w")
        process = subprocess.Popen(argv, env=env, stderr=log, **kwargs)
        self.items.append((process, log))
        return process

    def log(self, name):
        return (self.directory / f"{name}.log").read_text()

    def stop(self):
        for process, log in reversed(self.items):
            stop_process(process)
            log.close()


class Drive(threading.Thread):
    """Publishes raw GPS fixes of one device moving east at 10 m/s, every `interval` seconds,
    until stopped; each fix carries satellites and HDOP as a receiver's would."""

    def __init__(self, bus, interval=0.2, device=DEVICE):
        super().__init__(daemon=True)
        self.bus, self.interval, self.device = bus, interval, device
        self.stopping = threading.Event()
        self.sent = 0

    def run(self):
        sock = self.bus.publisher()
        try:
            while not self.stopping.is_set():
                t = time.time()
                east = 10.0 * self.sent * self.interval
                lat, lon = START[0], START[1] + east / (111_320.0 * 0.8551)
                body = {"v": 1, "type": "location", "id": f"drive-{os.getpid()}-{self.sent}", "t": t, "src": "test/drive",
                        "seq": self.sent + 1, "device": self.device, "source": "gps", "lat": lat, "lon": lon, "hacc": 4.0,
                        "alt": 20.0 + 0.01 * self.sent, "vacc": 6.0, "speed": 10.0, "speedAcc": 0.3, "course": 90.0,
                        "mode": "3d", "sats": 9, "hdop": 0.9}
                sock.send_multipart([f"location.raw.{self.device}".encode(), json.dumps(body).encode()])
                self.sent += 1
                self.stopping.wait(self.interval)
        finally:
            sock.close(0)

    def stop(self):
        self.stopping.set()
        self.join(timeout=5)


class FusedRecorder(threading.Thread):
    """Records every location.fused.<device> message on the bus: fixes by millisecond time."""

    def __init__(self, bus, device=DEVICE):
        super().__init__(daemon=True)
        self.sock = bus.subscriber(f"location.fused.{device}")
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.fixes = {}

    def run(self):
        try:
            while not self.stopping.is_set():
                if self.sock.poll(100) == 0:
                    continue
                _, body = self.sock.recv_multipart()
                fix = json.loads(body)
                with self.lock:
                    self.fixes[round(fix["t"] * 1000)] = fix
        finally:
            self.sock.close(0)

    def at(self, milliseconds, timeout=10.0):
        """The fused fix of that time; waits for the recorder to have seen it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if milliseconds in self.fixes:
                    return self.fixes[milliseconds]
            time.sleep(0.02)
        raise AssertionError(f"no fused fix on the bus at {milliseconds} ms")

    def all(self):
        with self.lock:
            return list(self.fixes.values())

    def stop(self):
        self.stopping.set()
        self.join(timeout=5)


def start_gpsd(processes, bus, *args, name="gpsd"):
    """Starts locus-gpsd on a free port; returns (process, port) once it listens."""
    process = processes.start([str(bin_dir() / "locus-gpsd"), "--listen", "127.0.0.1:0", "--health-interval", "0.5", *args],
                              bus.env, name)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        found = re.search(r"protocol on 127\.0\.0\.1:(\d+)", processes.log(name))
        if found:
            return process, int(found.group(1))
        assert process.poll() is None, f"locus-gpsd exited {process.returncode}: {processes.log(name)}"
        time.sleep(0.05)
    raise AssertionError("locus-gpsd did not start listening: " + processes.log(name))


def start_fusion(processes, bus, directory):
    processes.start([str(bin_dir() / "locus-fusion"), "--state", str(directory / "fusion"), "--health-interval", "0.5"],
                    bus.env, "fusion")


class Client:
    """A gpsd-protocol client on a raw socket: send commands, read JSON objects or lines."""

    def __init__(self, port, receive_buffer=None):
        self.sock = socket.socket()
        if receive_buffer:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(10)
        self.sock.connect(("127.0.0.1", port))
        self.buffer = b""

    def send(self, text):
        self.sock.sendall(text.encode())

    def line(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            assert remaining > 0, "no line in time"
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed by the server")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode().rstrip("\r")

    def object(self, timeout=10.0):
        return json.loads(self.line(timeout))

    def wait_for(self, predicate, timeout=15.0):
        deadline = time.monotonic() + timeout
        while True:
            found = self.object(max(0.01, deadline - time.monotonic()))
            if predicate(found):
                return found

    def close(self):
        self.sock.close()


def health(bus, timeout=10.0, predicate=lambda counters: True):
    """The next health.gpsd counters that satisfy `predicate`."""
    sock = bus.subscriber("health.gpsd")
    try:
        _, body = bus.wait_for(sock, lambda topic, body: predicate(body["counters"]), timeout=timeout)
        return body["counters"]
    finally:
        sock.close(0)
