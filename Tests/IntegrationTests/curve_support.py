"""A real locus-bus with CURVE on tcp, an allow-list, and a local ipc pair for trusted
services and the admin CLI; real pyzmq clients holding each entry's keys."""
import json
import os
import socket
import subprocess
import time

import zmq

from conftest import bin_dir, envelope


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CurveBus:
    """`clients` are allow-list entries without keys: {"name": ..., "roles": [...], ...}; every
    entry (and `extra_keys`, names with keys but no entry) gets a keypair from `locus keys gen`."""

    def __init__(self, directory, clients, extra_keys=("stranger",)):
        self.directory = directory
        self.context = zmq.Context()
        self.keys = {}
        for name in ["bus", *[c["name"] for c in clients], *extra_keys]:
            subprocess.run([str(bin_dir() / "locus"), "keys", "gen", name, "--dir", str(directory)],
                           capture_output=True, text=True, check=True)
            self.keys[name] = self.read_pair(directory / f"{name}.key")
        allow = {"clients": [dict(entry, publicKey=self.keys[entry["name"]][0].decode()) for entry in clients]}
        (directory / "allow.json").write_text(json.dumps(allow))
        port_pub, port_sub = free_port(), free_port()
        self.pub, self.sub = f"tcp://127.0.0.1:{port_pub}", f"tcp://127.0.0.1:{port_sub}"
        self.local_pub, self.local_sub = f"ipc://{directory}/pub", f"ipc://{directory}/sub"
        self.env = dict(os.environ, LOCUS_PUB=self.local_pub, LOCUS_SUB=self.local_sub)
        self.log_path = directory / "bus.log"
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [str(bin_dir() / "locus-bus"), "--pub", self.pub, "--sub", self.sub,
             "--local-pub", self.local_pub, "--local-sub", self.local_sub,
             "--allow", str(directory / "allow.json"), "--curve-secret", str(directory / "bus.key"),
             "--state", str(directory / "state"), "--health-interval", "0.5"],
            env=self.env, stderr=self.log, text=True)
        probe = self.local_socket(zmq.SUB, "health.bus")
        assert probe.poll(10_000), "locus-bus did not start"
        probe.close(0)
        self.others = []

    @staticmethod
    def read_pair(path):
        fields = dict(line.split(" = ") for line in path.read_text().splitlines() if " = " in line)
        return fields["public-key"].encode(), fields["secret-key"].encode()

    def local_socket(self, kind, *prefixes):
        sock = self.context.socket(kind)
        sock.connect(self.local_sub if kind == zmq.SUB else self.local_pub)
        for prefix in prefixes:
            sock.setsockopt_string(zmq.SUBSCRIBE, prefix)
        return sock

    def curve_socket(self, kind, who, *prefixes):
        sock = self.context.socket(kind)
        sock.curve_serverkey = self.keys["bus"][0]
        sock.curve_publickey, sock.curve_secretkey = self.keys[who]
        sock.connect(self.sub if kind == zmq.SUB else self.pub)
        for prefix in prefixes:
            sock.setsockopt_string(zmq.SUBSCRIBE, prefix)
        return sock

    def publisher(self, who=None):
        sock = self.context.socket(zmq.XPUB)
        # Unbounded: a burst the bus cannot take at once waits here instead of being dropped
        # at the publisher's high-water mark (the tests count what arrives).
        sock.setsockopt(zmq.SNDHWM, 0)
        if who:
            sock.curve_serverkey = self.keys["bus"][0]
            sock.curve_publickey, sock.curve_secretkey = self.keys[who]
        sock.connect(self.pub if who else self.local_pub)
        assert sock.poll(10_000), "the bus never subscribed to the publisher"
        sock.recv()
        return sock

    def auth(self, *args):
        return subprocess.run([str(bin_dir() / "locus"), "auth", *args], env=self.env,
                              capture_output=True, text=True, timeout=20)

    def start(self, program, *args):
        """A service on the local ipc pair (the trusted identity), stopped with the bus."""
        process = subprocess.Popen([str(bin_dir() / program), "--health-interval", "0.5", *args], env=self.env,
                                   stderr=self.log, text=True)
        self.others.append(process)
        return process

    def stop(self):
        for process in [*reversed(self.others), self.process]:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=10)
        self.log.close()
        self.context.destroy(linger=0)


def location(device, lat):
    return envelope("location", device=device, source="gps", lat=lat, lon=121.47, hacc=5.0)


def send(sock, topic, body):
    sock.send_multipart([topic.encode(), json.dumps(body).encode()])


def drain(sock, seconds):
    """Every message that arrives within `seconds`."""
    got = []
    deadline = time.monotonic() + seconds
    while (remaining := deadline - time.monotonic()) > 0:
        if sock.poll(int(remaining * 1000) + 1):
            topic, body = sock.recv_multipart()
            got.append((topic.decode(), json.loads(body)))
    return got


def wait_for(sock, predicate, timeout=10.0, seen=None):
    """Receives until predicate(topic, body) holds; every message received is appended to `seen`."""
    deadline = time.monotonic() + timeout
    while (remaining := deadline - time.monotonic()) > 0:
        if sock.poll(int(remaining * 1000) + 1):
            topic, body = sock.recv_multipart()
            message = (topic.decode(), json.loads(body))
            if seen is not None:
                seen.append(message)
            if predicate(*message):
                return message
    raise AssertionError("expected message did not arrive in time")


def publish_until(pub, sub, topic, make, predicate, timeout=10.0):
    """Publishes fresh messages until the subscriber sees one matching predicate."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        send(pub, topic, make())
        if sub.poll(50):
            t, body = sub.recv_multipart()
            if predicate(t.decode(), json.loads(body)):
                return True
    return False
