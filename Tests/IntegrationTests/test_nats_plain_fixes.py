"""`--fix-delivery plain` on a real three-node NATS cluster (docs/nats.md, "Fix delivery"):
positions travel as plain NATS on the same partitioned subjects, nothing stores them in
LOCUS_FIXES, the drive through provider → fusion (2 partitions) → geofence (3 partitions) →
notifier gives the --stdio reference's notifications, and a late subscriber starts from each
device's last position, kept in LOCUS_LAST_FIXES by the publisher."""
import asyncio
import json

import nats
import nats.js.errors
import pytest

from conftest import envelope
from nats_support import Cluster, start_service, stop, wait_until
from test_nats_pipeline import DEVICES, chaos, per_device, reference_sink, run_pipeline

PLAIN = {"LOCUS_FIX_DELIVERY": "plain"}


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path / "nats", raw_partitions=2, fused_partitions=3)
    yield c
    c.down()


async def stream_names(urls):
    client = await nats.connect(servers=urls)
    try:
        return {info.config.name for info in await client.jetstream().streams_info()}
    finally:
        await client.close()


async def last_positions(urls, subjects):
    """The stored last value of each subject in LOCUS_LAST_FIXES (None where there is none)."""
    client = await nats.connect(servers=urls)
    js = client.jetstream()
    out = {}
    try:
        for subject in subjects:
            try:
                stored = await js.get_last_msg("LOCUS_LAST_FIXES", subject)
                out[subject] = json.loads(stored.data)
            except nats.js.errors.NotFoundError:
                out[subject] = None
    finally:
        await client.close()
    return out


def token(device):
    return device.replace(".", "%2E")


def test_plain_fixes_give_the_stdio_reference_notifications(cluster, tmp_path):
    scenario = chaos.Scenario(route_seconds=900, speed=10, decoys=50)
    expected = reference_sink(scenario, tmp_path)
    assert len(expected) >= 4 * 8, "the reference drive crosses regions"
    got, _ = run_pipeline(cluster, scenario, tmp_path, env_extra=PLAIN)
    ids = [n["id"] for n in got]
    assert len(ids) == len(set(ids)), "a notification was delivered twice"
    assert per_device(got) == per_device(expected), "per device, the same notifications in the same order"
    streams = asyncio.run(stream_names(cluster.urls))
    assert "LOCUS_FIXES" not in streams, "plain fixes are not stored one by one"
    assert {"LOCUS_EVENTS", "LOCUS_STATE", "LOCUS_LAST_FIXES"} <= streams, streams
    # Each device's very last fused position is kept once the publishers stopped.
    last_fused = {}
    for line in (tmp_path / "reference" / "fused.txt").read_text().splitlines():
        topic, body = line.split(" ", 1)
        if topic.startswith("location.fused."):
            last_fused[json.loads(body)["device"]] = json.loads(body)["t"]
    stored = asyncio.run(last_positions(cluster.urls, [f"last.location.fused.{token(d)}" for d in DEVICES]))
    for device in DEVICES:
        value = stored[f"last.location.fused.{token(device)}"]
        assert value is not None and value["device"] == device, (device, value)
        assert value["t"] == last_fused[device], (device, value["t"], last_fused[device])


async def publish_plain_raw(urls, devices, count, t0):
    """Plain raw fixes (as a provider with --fix-delivery plain sends them); returns, per
    device, the partition token the servers gave its fused positions."""
    client = await nats.connect(servers=urls)
    partitions = {}
    fused = []

    async def on_fused(message):
        fused.append(message.subject)
        _, _, partition, device = message.subject.split(".")
        partitions[device] = int(partition)
    await client.subscribe("location.fused.>", cb=on_fused)
    await client.flush()
    for n in range(count):
        for device in devices:
            body = envelope("location", t=t0 + n, device=device, source="gps", lat=31.2 + n * 1e-4, lon=121.4, hacc=5.0)
            await client.publish("location.raw." + token(device), json.dumps(body).encode())
    await client.flush()
    for _ in range(600):
        if len(fused) >= count * len(devices):
            break
        await asyncio.sleep(0.05)
    await client.close()
    return partitions, len(fused)


async def geofence_health(urls, partitions, timeout=60):
    """Each partition's newest health.geofence counters, by `src`, once every partition has
    read its stored last positions (`lastValues` counted)."""
    client = await nats.connect(servers=urls)
    seen = {}

    async def on_health(message):
        body = json.loads(message.data)
        seen[body["src"]] = body["counters"]
    await client.subscribe("health.geofence", cb=on_health)
    for _ in range(int(timeout / 0.1)):
        if len(seen) >= partitions and all("lastValues" in counters for counters in seen.values()):
            break
        await asyncio.sleep(0.1)
    await client.close()
    return seen


def test_a_late_subscriber_starts_from_each_devices_last_plain_position(cluster, tmp_path):
    devices = [f"late.{n}" for n in range(9)]
    t0 = 1_790_000_000.0
    fusion_log = tmp_path / "fusion.log"
    fusion = start_service(cluster, "locus-fusion", "--clock-fault", "1e9", log=open(fusion_log, "w"), env_extra=PLAIN)
    late = []
    try:
        assert wait_until(lambda: "started: on NATS" in fusion_log.read_text(), 60), fusion_log.read_text()
        partitions, received = asyncio.run(publish_plain_raw(cluster.urls, devices, 5, t0))
        assert received == 5 * len(devices), f"fusion passed on {received} of {5 * len(devices)} plain fixes"
        assert len(partitions) == len(devices)
        subjects = [f"last.location.fused.{token(d)}" for d in devices]
        # At most one write per device per interval: the newest arrives once its interval has passed.
        assert wait_until(lambda: all(v and v["t"] == t0 + 4 for v in asyncio.run(last_positions(cluster.urls, subjects)).values()), 30), \
            asyncio.run(last_positions(cluster.urls, subjects))
        assert "LOCUS_FIXES" not in asyncio.run(stream_names(cluster.urls))
        # Geofence partitions started now read the last positions of their own devices only,
        # by the same partition function as the servers'.
        for k in range(3):
            late.append(start_service(cluster, "locus-geofence", "--default-authorization", "always", "--partition", f"{k}/3",
                                      log=open(tmp_path / f"geofence{k}.log", "w"), cwd=tmp_path, env_extra=PLAIN))
        health = asyncio.run(geofence_health(cluster.urls, 3))
        for k in range(3):
            mine = sum(1 for p in partitions.values() if p == k)
            assert health[f"geofence/p{k}"].get("lastValues", 0) == mine, (k, health[f"geofence/p{k}"], partitions)
    finally:
        for process in late:
            assert stop(process) == 0
        assert stop(fusion) == 0
