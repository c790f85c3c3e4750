"""locus-provider nmea over TCP (with a reconnect), UDP and a serial port (a pty), on loopback only."""
import json
import os
import pty
import queue
import socket
import subprocess
import threading
import time

from conftest import SHARED_DATA, bin_dir

LOG = SHARED_DATA / "nmea" / "mt3339.log"


def sentences():
    return [line for line in LOG.read_text(errors="replace").splitlines() if line.startswith("$")]


def expected_positions():
    result = subprocess.run([str(bin_dir() / "locus-provider"), "nmea", "--file", str(LOG), "--rate", "max", "--stdio"],
                            capture_output=True, text=True, timeout=60)
    bodies = [json.loads(line.split(" ", 1)[1]) for line in result.stdout.splitlines() if line.startswith("location.raw.")]
    return [(round(b["lat"], 7), round(b["lon"], 7)) for b in bodies]


class Provider:
    """A provider process whose stdout lines are collected on a thread."""

    def __init__(self, *args):
        self.process = subprocess.Popen([str(bin_dir() / "locus-provider"), "nmea", *args, "--stdio"],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line)

    def collect(self, count, timeout=30):
        """Topics and bodies until `count` locations arrived (or fail)."""
        messages = []
        deadline = time.monotonic() + timeout
        while sum(1 for t, _ in messages if t.startswith("location.raw.")) < count:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"only {len(messages)} messages: {messages[-3:]}"
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            topic, _, body = line.partition(" ")
            messages.append((topic, json.loads(body)))
        return messages

    def stop(self):
        self.process.terminate()
        code = self.process.wait(timeout=10)
        assert code == 0, self.process.stderr.read()


def positions(messages):
    return [(round(b["lat"], 7), round(b["lon"], 7)) for t, b in messages if t.startswith("location.raw.")]


def test_tcp_source_reads_and_reconnects_after_the_server_drops_it():
    expected = expected_positions()
    lines = sentences()
    half = len(lines) // 2
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(30)
    port = server.getsockname()[1]
    provider = Provider("--tcp", f"127.0.0.1:{port}")
    try:
        first, _ = server.accept()
        first.sendall(("\r\n".join(lines[:half]) + "\r\n").encode())
        first.close()  # the receiver "unplugs"
        second, _ = server.accept()  # the provider reopens with back-off
        second.sendall(("\r\n".join(lines[half:]) + "\r\n").encode())
        messages = provider.collect(len(expected) - 1)
        second.close()
        got = positions(messages)
        # The epoch cut by the disconnect may be lost; nothing else may be.
        assert len(set(expected) - set(got)) <= 1 and set(got) <= set(expected)
        assert any(t == "error.provider" and b["code"] == "sourceLost" for t, b in messages), "the drop is reported"
    finally:
        provider.stop()
        server.close()


def test_udp_source_reads_datagrams():
    expected = expected_positions()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = Provider("--udp", f":{port}")
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        deadline = time.monotonic() + 30
        while not udp_port_bound(port):  # a datagram sent before the bind is simply lost
            assert time.monotonic() < deadline and provider.process.poll() is None, "provider never bound its UDP port"
            time.sleep(0.02)
        for line in sentences():
            sender.sendto((line + "\r\n").encode(), ("127.0.0.1", port))
        messages = provider.collect(len(expected))
        assert positions(messages)[:len(expected)] == expected
    finally:
        sender.close()
        provider.stop()


def udp_port_bound(port):
    with open("/proc/net/udp") as table:
        return any(line.split()[1].endswith(f":{port:04X}") for line in table.readlines()[1:])


def test_serial_source_reads_a_pty_like_a_gps_puck():
    expected = expected_positions()
    master, slave = pty.openpty()
    path = os.ttyname(slave)
    provider = Provider("--serial", path, "--baud", "9600")
    try:
        data = ("\r\n".join(sentences()) + "\r\n").encode()
        for start in range(0, len(data), 512):
            os.write(master, data[start:start + 512])
        messages = provider.collect(len(expected))
        assert positions(messages)[:len(expected)] == expected
    finally:
        provider.stop()
        os.close(master)
        os.close(slave)
