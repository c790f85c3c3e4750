"""The command line on a real three-node NATS cluster (docs/nats.md, "Operations"): `locus pub`
and `locus tail` on a nats:// endpoint (stored last values first), and `locus doctor`
reporting the servers, each stream's leader and replicas, each consumer's backlog and the
services' health — and a node that is down."""
import os
import subprocess
import time

import pytest

from conftest import bin_dir
from nats_support import Cluster, start_service, stop, wait_until


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path / "nats")
    yield c
    c.down()


def locus(cluster, *args, timeout=60):
    return subprocess.run([str(bin_dir() / "locus"), *args], env=cluster.service_env(), capture_output=True, text=True,
                          timeout=timeout)


def fix(device, lon):
    return f'{{"type":"location","device":"{device}","source":"gps","lat":31.2,"lon":{lon},"hacc":5}}'


def test_pub_and_tail_on_a_nats_endpoint(cluster):
    # A last value stored before the tail starts comes first, then what is published live.
    stored = locus(cluster, "pub", "location.approx.car.7", '{"type":"location","device":"car.7","source":"approx","lat":31.2,"lon":121.4,"hacc":3000}')
    assert stored.returncode == 0, stored.stderr
    tail = subprocess.Popen([str(bin_dir() / "locus"), "tail", "location.", "--count", "4", "--timeout", "60"],
                            env=cluster.service_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = tail.stdout.readline()  # bounded by the tail's own --timeout
        assert first.startswith("location.approx.car.7 "), "the stored last value first: " + first
        for n in range(3):
            done = locus(cluster, "pub", "location.raw.car.1", fix("car.1", 121.4 + n * 1e-4))
            assert done.returncode == 0, done.stderr
        out, err = tail.communicate(timeout=60)
    finally:
        if tail.poll() is None:
            tail.kill()
    lines = out.splitlines()
    assert tail.returncode == 0, err
    assert [line.split(" ", 1)[0] for line in lines] == ["location.raw.car.1"] * 3, "topics unescaped, partition token dropped"
    assert all('"device":"car.1"' in line for line in lines)


def test_pub_refuses_an_unreachable_cluster(tmp_path):
    env = dict(os.environ, LOCUS_PUB="nats://127.0.0.1:1")
    done = subprocess.run([str(bin_dir() / "locus"), "pub", "location.raw.x", fix("x", 121.4)], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 69 and "cannot connect to NATS" in done.stderr, done.stderr


def region_event(n):
    return ('{"type":"region.event","owner":"shop","regionId":"door","device":"car.2","event":"enter","state":"inside",'
            f'"cause":"crossing","location":{{"lat":31.2,"lon":121.4,"hacc":5,"t":{1_790_000_000 + n}}}}}')


def test_doctor_reports_streams_consumers_and_health_and_a_node_that_is_down(cluster, tmp_path):
    log = tmp_path / "notifier.log"
    notifier = start_service(cluster, "locus-notifier", "--state", str(tmp_path / "notifier"),
                             "--sink", f"jsonl:{tmp_path / 'sink.jsonl'}", log=open(log, "w"))
    try:
        assert wait_until(lambda: "started: on NATS" in log.read_text(), 60), log.read_text()
        report = locus(cluster, "doctor", "--wait", "2")
        assert report.returncode == 0, report.stdout + report.stderr
        for stream in ("LOCUS_FIXES", "LOCUS_EVENTS", "LOCUS_STATE"):
            assert f"ok: stream {stream}: " in report.stdout and "3 replica(s), leader n" in report.stdout, report.stdout
        assert "ok: consumer notifier_main_region_event_ (LOCUS_EVENTS): 0 waiting, 0 unacknowledged" in report.stdout, report.stdout
        assert "ok: notifier: ok" in report.stdout, report.stdout
        # A node down: every stream names it among its followers, as offline or behind; the
        # service stays healthy, and warnings do not fail.
        os.kill(cluster.pid(3), 9)
        degraded = wait_until(lambda: (lambda r: r if r.stdout.count("warn: stream") >= 3 else None)(
            locus(cluster, "doctor", "--wait", "2")), 60)
        assert degraded, "a stream with a follower down is a warning"
        assert all("n3" in line for line in degraded.stdout.splitlines() if line.startswith("warn: stream")), degraded.stdout
        assert degraded.returncode == 0, degraded.stdout
    finally:
        stop(notifier)
    # With the notifier stopped, the events for it wait in its consumer: the backlog shows.
    for n in range(5):
        done = locus(cluster, "pub", "region.event.shop", region_event(n))
        assert done.returncode == 0, done.stderr
    backlog = locus(cluster, "doctor", "--wait", "1")
    assert "consumer notifier_main_region_event_ (LOCUS_EVENTS): 5 waiting" in backlog.stdout, backlog.stdout


def test_doctor_fails_without_a_cluster(tmp_path):
    env = dict(os.environ, LOCUS_PUB="nats://127.0.0.1:1")
    done = subprocess.run([str(bin_dir() / "locus"), "doctor", "--wait", "1"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "fail: cannot connect to NATS" in done.stdout, done.stdout
