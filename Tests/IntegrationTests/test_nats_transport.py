"""The NATS transport's edges on a real three-node cluster: a late joiner gets the last
position, a cluster that is down at start is waited for, and the server's partition
function is the one `--partition` assumes."""
import asyncio
import json
import time

import nats
import pytest

from conftest import bin_dir, envelope
import os
import subprocess

from nats_support import SCRIPT, Cluster, free_port_base, start_service, stop, wait_until


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path / "nats", raw_partitions=2, fused_partitions=3)
    yield c
    c.down()


async def publish_raw(urls, device, count, t0=1_790_000_000.0):
    client = await nats.connect(servers=urls)
    js = client.jetstream()
    for n in range(count):
        body = envelope("location", t=t0 + n, device=device, source="gps", lat=31.2 + n * 1e-4, lon=121.4, hacc=5.0)
        await js.publish("location.raw." + device.replace(".", "%2E"), json.dumps(body).encode(), headers={"Nats-Msg-Id": body["id"]})
    await client.close()


async def collect(urls, subject, seconds, until=None, then=None):
    """Messages on `subject` for `seconds` or until `until(got)`; `then()` runs once subscribed."""
    client = await nats.connect(servers=urls)
    got = []
    async def on_message(message):
        got.append((message.subject, json.loads(message.data)))
    await client.subscribe(subject, cb=on_message)
    await client.flush()
    if then:
        then()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not (until and until(got)):
        await asyncio.sleep(0.05)
    await client.close()
    return got


def test_a_late_joiner_gets_each_devices_last_position(cluster, tmp_path):
    # The streams exist once any Locus service has connected: one starts and stops first.
    early_log = tmp_path / "early.log"
    early = start_service(cluster, "locus-fusion", "--instance", "early", log=open(early_log, "w"))
    assert wait_until(lambda: "started: on NATS" in early_log.read_text(), 60), early_log.read_text()
    assert stop(early) == 0
    asyncio.run(publish_raw(cluster.urls, "late.car", 5))
    started = []
    try:
        got = asyncio.run(collect(cluster.urls, "location.fused.>", 30,
                                  until=lambda g: any(s.endswith("late%2Ecar") for s, _ in g),
                                  # Fixed fix times (a replay): trusted, not re-timed by arrival as clock faults.
                                  then=lambda: started.append(start_service(cluster, "locus-fusion", "--instance", "late",
                                                                            "--clock-fault", "1e9"))))
        fused = [body for subject, body in got if subject.endswith("late%2Ecar")]
        assert fused, "the fusion started after the fixes never saw them"
        assert fused[0]["t"] == 1_790_000_004.0, "it starts from the device's last position, not the first"
        assert any(subject.startswith("location.fused.") and subject.count(".") == 3 for subject, _ in got), \
            "the servers insert the partition token"
    finally:
        assert stop(started[0]) == 0


PUBLISH_AFTER_OUTAGE = """
import asyncio, json, sys, nats
async def main():
    client = await nats.connect(servers=sys.argv[1].split(","))
    body = {"v": 1, "type": "location", "id": "outage-1", "t": 1790000000.0, "src": "test/1", "seq": 1,
            "device": "after-outage", "source": "gps", "lat": 31.2, "lon": 121.4, "hacc": 5.0}
    await client.jetstream().publish("location.raw.after-outage", json.dumps(body).encode())
    await client.close()
asyncio.run(main())
"""


def test_a_service_waits_for_a_cluster_that_is_down_at_start(tmp_path):
    directory = tmp_path / "nats"
    port = free_port_base()
    endpoint = ",".join(f"nats://127.0.0.1:{port + n}" for n in range(3))
    log_path = tmp_path / "fusion.log"
    env = dict(os.environ, LOCUS_PUB=endpoint)
    with open(log_path, "w") as log:
        fusion = subprocess.Popen([str(bin_dir() / "locus-fusion"), "--health-interval", "0.5"], env=env, stderr=log)
    try:
        assert wait_until(lambda: "cannot connect to NATS" in log_path.read_text(), 30), log_path.read_text()
        assert fusion.poll() is None, "it keeps trying instead of exiting"
        env_cluster = dict(os.environ, LOCUS_NATS_PORT=str(port))
        result = subprocess.run(["bash", str(SCRIPT), "up", str(directory)],
                                env=env_cluster, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        try:
            assert wait_until(lambda: "started: on NATS" in log_path.read_text(), 60), log_path.read_text()
            urls = endpoint.split(",")
            got = asyncio.run(collect(urls, "location.fused.>", 20, until=lambda g: g,
                                      then=lambda: subprocess.run(["python3", "-c", PUBLISH_AFTER_OUTAGE, endpoint], timeout=30)))
            assert got and got[0][1]["device"] == "after-outage"
            health = asyncio.run(collect(urls, "health.fusion", 10, until=lambda g: g))
            assert health[0][1]["counters"]["natsConnectFailures"] >= 1
        finally:
            subprocess.run(["bash", str(SCRIPT), "down", str(directory)],
                           env=env_cluster, timeout=60)
    finally:
        assert stop(fusion) == 0
