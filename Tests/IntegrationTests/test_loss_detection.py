"""Loss detection that means loss: `tseq` counts per (publisher, topic), so a subscriber of some
topics reports exactly what the bus dropped for it, and nothing when nothing was lost."""
import json
import os
import re
import signal
import subprocess
import time

import zmq

from conftest import Bus, bin_dir


def location(src, topic, tseq, seq, device):
    return {"v": 1, "type": "location", "id": f"{src}-{seq}", "t": 1_790_000_000 + seq / 10, "src": src,
            "seq": seq, "tseq": tseq, "device": device, "source": "fused", "lat": 48.1, "lon": 11.5, "hacc": 5}


class Flood:
    """A publisher on many topics that numbers its messages as Locus publishers do."""

    def __init__(self, bus, src="flood/1"):
        self.socket = bus.publisher()
        # Like Locus's own publishers: a full queue makes the send wait, never drop silently.
        self.socket.setsockopt(zmq.XPUB_NODROP, 1)
        self.src = src
        self.seq = 0
        self.tseq = {}

    def send(self, topic, device="d"):
        self.seq += 1
        self.tseq[topic] = self.tseq.get(topic, 0) + 1
        body = location(self.src, topic, self.tseq[topic], self.seq, device)
        frames = [topic.encode(), json.dumps(body).encode()]
        while True:
            try:
                self.socket.send_multipart(frames, flags=zmq.NOBLOCK)
                return body
            except zmq.Again:
                self.socket.poll(100, zmq.POLLOUT)


def health(bus, service, after, timeout=15):
    sock = bus.subscriber(f"health.{service}")
    try:
        _, body = bus.wait_for(sock, lambda _t, b: b["t"] > after, timeout=timeout)
        return body["counters"]
    finally:
        sock.close(0)


def lost_reported(stderr_text):
    return sum(int(n) for n in re.findall(r"warn: (\d+) message\(s\) lost before reaching this subscriber", stderr_text))


def start_tail(bus, directory, *prefixes):
    out = open(directory / "tail.out", "w")
    err = open(directory / "tail.err", "w")
    process = subprocess.Popen([str(bin_dir() / "locus"), "tail", "--json", *prefixes], env=bus.env, stdout=out, stderr=err)
    return process, directory / "tail.out", directory / "tail.err"


def lines_with(path, needle):
    return sum(1 for line in path.read_text().splitlines() if needle in line)


def wait_until(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_subscriber_of_some_topics_sees_no_loss_where_there_is_none(runtime_dir):
    bus = Bus(runtime_dir)
    try:
        tail, out, err = start_tail(bus, runtime_dir, "location.fused.d3", "visit.")
        flood = Flood(bus)
        wait_until(lambda: (flood.send("location.fused.d3") and False) or lines_with(out, "flood/1") > 0, 10, "tail to subscribe")
        for n in range(20_000):
            flood.send(["location.fused.d1", "location.fused.d3", "location.approx.d3", "health.flood", "visit.d3"][n % 5])
        final = flood.send("location.fused.d3")
        wait_until(lambda: final["id"] in out.read_text(), 20, "the last message to reach tail")
        tail.send_signal(signal.SIGINT)
        tail.wait(timeout=10)
        assert lost_reported(err.read_text()) == 0, err.read_text()
        assert "lost" not in err.read_text(), err.read_text()
    finally:
        bus.stop()


def test_messages_dropped_at_the_high_water_mark_are_reported_exactly(runtime_dir):
    """A stopped subscriber behind a bus with a small queue: the bus drops; the subscriber,
    which subscribes to a subset of the publisher's topics, reports exactly how many it lost."""
    bus = Bus(runtime_dir, extra_args=("--hwm", "50"))
    try:
        tail, out, err = start_tail(bus, runtime_dir, "location.fused.")
        flood = Flood(bus)
        wait_until(lambda: (flood.send("location.fused.probe") and False) or lines_with(out, "flood/1") > 0, 10,
                   "tail to subscribe")
        topics = [f"location.fused.d{n}" for n in range(10)]
        before = health(bus, "bus", after=time.time())["dropped"]
        os.kill(tail.pid, signal.SIGSTOP)
        try:
            for n in range(300_000):
                # Every third message is on a topic tail does not subscribe to: not a loss for it.
                topic = topics[n % 10] if n % 3 else "location.raw.other"
                flood.send(topic, device=topic.rsplit(".", 1)[1])
        finally:
            os.kill(tail.pid, signal.SIGCONT)
        # A last message on each topic shows a loss at its end; resend until each has arrived.
        seen = set()
        for _ in range(200):
            ids = {topic: flood.send(topic, device=topic.rsplit(".", 1)[1])["id"] for topic in topics if topic not in seen}
            deadline = time.monotonic() + 1
            while time.monotonic() < deadline and ids:
                text = out.read_text()
                for topic, ident in list(ids.items()):
                    if ident in text:
                        seen.add(topic)
                        del ids[topic]
                time.sleep(0.05)
            if len(seen) == len(topics):
                break
        assert len(seen) == len(topics), "the last messages never reached tail"
        after = health(bus, "bus", after=time.time())["dropped"]
        tail.send_signal(signal.SIGINT)
        tail.wait(timeout=10)
        sent_to_tail = sum(flood.tseq[topic] for topic in topics)
        devices = {topic.rsplit(".", 1)[1] for topic in topics}
        received = sum(1 for line in out.read_text().splitlines() if json.loads(line)["device"] in devices)
        reported = lost_reported(err.read_text())
        assert after > before, "the bus noticed no full queue: the test did not overflow it"
        assert sent_to_tail - received > 1000, f"only {sent_to_tail - received} lost: the queue did not overflow"
        assert reported == sent_to_tail - received, f"tail reported {reported} lost; {sent_to_tail - received} never arrived"
    finally:
        bus.stop()


def test_a_simulated_drive_through_locus_up_reports_no_gaps_in_any_service(tmp_path):
    """The stack as a newcomer runs it, with a simulated drive at 10 fixes/s and Wi-Fi and cell
    fixes besides: every service subscribes to a subset of the topics, and none reports a gap."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime), XDG_STATE_HOME=str(tmp_path / "state"))
    for name in ("LOCUS_PUB", "LOCUS_SUB"):
        env.pop(name, None)
    provider = "sim --waypoints 31.2280,121.4700;31.2400,121.4900 --mps 15 --hz 10 --wifi-hz 1 --cell-hz 0.5 --device-id car"
    up = subprocess.Popen([str(bin_dir() / "locus"), "up", "--provider", provider], env=env,
                          stderr=open(tmp_path / "up.err", "w"), stdout=subprocess.DEVNULL)
    context = zmq.Context()
    sock = context.socket(zmq.SUB)
    sock.connect(f"ipc://{runtime}/locus/sub")
    sock.setsockopt_string(zmq.SUBSCRIBE, "health.")
    try:
        latest = {}
        services = {"bus", "fusion", "geofence", "motion", "notifier", "provider"}
        started = time.monotonic()
        # 20 s of driving: every service's health after that moment must show received > 100 and gaps 0.
        while time.monotonic() - started < 60:
            if sock.poll(1000) == 0:
                continue
            topic, body = sock.recv_multipart()
            message = json.loads(body)
            if time.monotonic() - started > 20:
                latest[message["service"]] = message["counters"]
            # The notifier takes fixes only of devices with a destination: none here, so only its gaps count.
            if services <= latest.keys() and all(latest[s].get("received", 0) > 100 for s in services - {"provider", "notifier"}):
                break
        assert services <= latest.keys(), f"no health from {services - latest.keys()}"
        for service in services - {"provider", "notifier"}:
            assert latest[service].get("received", 0) > 100, (service, latest[service])
        assert {service: latest[service].get("gaps", 0) for service in services} == {s: 0 for s in services}, latest
    finally:
        sock.close(0)
        context.destroy(linger=0)
        up.send_signal(signal.SIGINT)
        up.wait(timeout=30)
