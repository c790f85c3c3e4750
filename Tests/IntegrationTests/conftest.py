"""Shared fixtures for integration tests: real binaries on a real bus over temporary ipc endpoints."""
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import time

import pytest
import zmq

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED_DATA = REPO.parent / "shared" / "data"


def bin_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("LOCUS_BIN", REPO / ".build" / "debug"))


@pytest.fixture
def bin_path():
    return bin_dir()


def stop_process(process, timeout=10):
    """Asks a process to stop (SIGTERM) and kills it if it has not after `timeout` seconds; returns its exit status."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


def wait_until(predicate, timeout, what):
    """Polls `predicate` until it returns something true; fails naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Bus:
    """A running locus-bus on private ipc endpoints, with helpers to talk to it from Python."""

    def __init__(self, directory: pathlib.Path, extra_args=()):
        self.directory = directory
        self.pub = f"ipc://{directory}/pub"
        self.sub = f"ipc://{directory}/sub"
        self.env = dict(os.environ, LOCUS_PUB=self.pub, LOCUS_SUB=self.sub)
        self.context = zmq.Context()
        self.process = subprocess.Popen(
            [str(bin_dir() / "locus-bus"), "--health-interval", "0.5", *extra_args],
            env=self.env, stderr=subprocess.PIPE, text=True)
        # Ready when its own health message reaches a subscriber (the cache replays it).
        sock = self.subscriber("health.bus")
        try:
            assert self.receive(sock, timeout=10) is not None, "locus-bus did not start"
        finally:
            sock.close(0)

    def subscriber(self, *prefixes):
        sock = self.context.socket(zmq.SUB)
        sock.connect(self.sub)
        for prefix in prefixes or ("",):
            sock.setsockopt_string(zmq.SUBSCRIBE, prefix)
        return sock

    def publisher(self):
        """An XPUB that connects, so we can wait until the bus has subscribed (no slow-joiner loss)."""
        sock = self.context.socket(zmq.XPUB)
        sock.connect(self.pub)
        poller = zmq.Poller()
        poller.register(sock, zmq.POLLIN)
        assert poller.poll(10_000), "bus never subscribed to the publisher"
        sock.recv()
        return sock

    @staticmethod
    def receive(sock, timeout=5.0):
        """One (topic, body-dict) or None after `timeout` seconds."""
        if sock.poll(int(timeout * 1000)) == 0:
            return None
        topic, body = sock.recv_multipart()
        return topic.decode(), json.loads(body)

    def wait_for(self, sock, predicate, timeout=10.0):
        """Receives until predicate(topic, body) holds; returns that message or fails."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError("expected message did not arrive in time")
            message = self.receive(sock, remaining)
            if message is not None and predicate(*message):
                return message

    def stop(self):
        stop_process(self.process, timeout=5)
        self.context.destroy(linger=0)


@pytest.fixture
def runtime_dir():
    directory = pathlib.Path(tempfile.mkdtemp(prefix="locus-test-"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def bus(runtime_dir):
    instance = Bus(runtime_dir)
    yield instance
    instance.stop()


def envelope(type_, t=None, **fields):
    """A body with a complete envelope, for publishing from tests."""
    envelope.counter += 1
    body = {"v": 1, "type": type_, "id": f"test-{os.getpid()}-{envelope.counter}",
            "t": t if t is not None else time.time(), "src": "test/py", "seq": envelope.counter}
    body.update(fields)
    return body


envelope.counter = 0
