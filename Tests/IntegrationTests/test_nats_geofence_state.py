"""The geofence's state on NATS (docs/nats.md, "Geofence state"): a partition killed after it
committed a crossing but before the servers stored the crossing's event sends the event at its
next start, once — nothing lost, nothing twice."""
import asyncio
import json
import time

import nats
import pytest
from nats.js.api import DiscardPolicy

from conftest import envelope
from nats_support import Cluster, start_service, stop, stored, wait_until

OWNER = "owner1"
DEVICE = "van.7"  # a dot: the subject escaping is in the path
CENTER = (31.2000, 121.4000)
T0 = 1_790_000_000.0


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path / "nats")
    yield c
    c.down()


FUSED_SUBJECT = "location.fused." + DEVICE.replace(".", "%2E")


def fused(t, north_m):
    lat = CENTER[0] + north_m / 111_320.0
    return envelope("location", t=t, device=DEVICE, source="fused", lat=lat, lon=CENTER[1], hacc=5.0)


async def js_publish(urls, items):
    """(subject, body) pairs through JetStream, each acknowledged, with Nats-Msg-Id = id."""
    client = await nats.connect(servers=urls)
    js = client.jetstream()
    for subj, body in items:
        await js.publish(subj, json.dumps(body).encode(), headers={"Nats-Msg-Id": body["id"]})
    await client.close()


async def refuse_new_events(urls, refuse):
    """LOCUS_EVENTS refuses every new message (its limit is what it holds), or takes them again."""
    client = await nats.connect(servers=urls)
    js = client.jetstream()
    info = await js.stream_info("LOCUS_EVENTS")
    info.config.max_msgs = max(1, info.state.messages) if refuse else -1
    info.config.discard = DiscardPolicy.NEW
    await js.update_stream(info.config)
    await client.close()


async def latest_health(urls, service, pid, timeout=20):
    """The first health message of process `pid` (the stored last one may be an earlier process's)."""
    client = await nats.connect(servers=urls)
    got = []
    async def on_message(message):
        body = json.loads(message.data)
        if body.get("detail", {}).get("pid") == str(pid):
            got.append(body)
    await client.subscribe(f"health.{service}", cb=on_message)
    deadline = time.monotonic() + timeout
    while not got and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    await client.close()
    return got[-1] if got else {}


async def consumer_done(urls, stream, durable):
    """Everything the durable consumer was given is handled and acknowledged."""
    client = await nats.connect(servers=urls)
    try:
        info = await client.jetstream().consumer_info(stream, durable)
        return info.num_pending == 0 and info.num_ack_pending == 0
    finally:
        await client.close()


def fixes_handled(cluster, process):
    return asyncio.run(latest_health(cluster.urls, "geofence", process.pid)).get("counters", {}).get("fixes", 0)


def region_add():
    return envelope("region.add", t=T0 - 10, owner=OWNER,
                    region={"id": "depot", "shape": {"type": "Circle", "center": [CENTER[1], CENTER[0]], "radius": 200}})


def geofence(cluster, host, log, *arguments):
    """A geofence started in `host` (a directory standing for a machine: its only files are there)."""
    host.mkdir(exist_ok=True)
    return start_service(cluster, "locus-geofence", "--default-authorization", "always", "--debounce", "2", *arguments,
                         log=open(log, "a"), cwd=host)


@pytest.mark.parametrize("store", ["sqlite", "bucket"])
def test_a_geofence_killed_before_its_event_was_stored_sends_it_at_its_next_start(cluster, tmp_path, store):
    """With --db the kept event waits in the database of the same host; without, in the key-value
    bucket, and the geofence comes back on another host."""
    log = tmp_path / "geofence.log"
    arguments = ["--db", "state.sqlite"] if store == "sqlite" else []
    service = geofence(cluster, tmp_path / "host-a", log, *arguments)
    try:
        assert wait_until(lambda: "started: on NATS" in log.read_text(), 60), log.read_text()
        outside = [fused(T0 + n, -2_000) for n in range(5)]
        asyncio.run(js_publish(cluster.urls, [("region.cmd", region_add())] + [(FUSED_SUBJECT, b) for b in outside]))
        assert wait_until(lambda: fixes_handled(cluster, service) >= 5, 60), "the geofence did not handle the first fixes"
        # The events stream now refuses: the crossing is committed to the database, its event
        # cannot be stored, and the geofence keeps trying.
        asyncio.run(refuse_new_events(cluster.urls, True))
        inside = [fused(T0 + 10 + n, 0) for n in range(6)]
        asyncio.run(js_publish(cluster.urls, [(FUSED_SUBJECT, b) for b in inside]))
        assert wait_until(lambda: "has not confirmed" in log.read_text(), 60), log.read_text()
        service.kill()
        service.wait()
        asyncio.run(refuse_new_events(cluster.urls, False))
        service = geofence(cluster, tmp_path / ("host-a" if store == "sqlite" else "host-b"), log, *arguments)
        assert wait_until(lambda: "kept by an earlier run" in log.read_text(), 60), log.read_text()
        # The restarted process handles the re-delivered inside fixes too: no second enter.
        assert wait_until(lambda: asyncio.run(consumer_done(cluster.urls, "LOCUS_FIXES", "geofence_main_location_fused_")), 60)
        events = asyncio.run(stored(cluster.urls, "region.event.>"))
        assert [(e["regionId"], e["device"], e["event"]) for e in events] == [("depot", DEVICE, "enter")]
    finally:
        stop(service)


def fnv1a(token):
    """The servers' partition function: FNV-1a 32 of the subject token."""
    value = 0x811C9DC5
    for byte in token.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def devices_in_partition(index, count, how_many):
    found = [f"truck.{n}" for n in range(1000) if fnv1a(f"truck%2E{n}") % count == index]
    return found[:how_many]


def drive(device, t0, metres_north):
    """One fused fix a second for `device`, at each distance north of the depot in turn."""
    subject_ = "location.fused." + device.replace(".", "%2E")
    return [(subject_, envelope("location", t=t0 + n, device=device, source="fused",
                                lat=CENTER[0] + m / 111_320.0, lon=CENTER[1], hacc=5.0))
            for n, m in enumerate(metres_north)]


def crossings(events):
    return sorted((e["device"], e["event"]) for e in events if e["event"] in ("enter", "exit"))


def test_a_partition_moved_to_a_fresh_host_continues_from_the_bucket(cluster, tmp_path):
    """Partition 1/3 runs on host A, is killed, and starts on host B with an empty directory: it
    knows the regions and each device's state, so an exit after the move is reported, an
    entry made before it is not reported again, and an entry after it is."""
    walker, parked, visitor = devices_in_partition(1, 3, 3)
    log = tmp_path / "geofence.log"
    service = geofence(cluster, tmp_path / "host-a", log, "--partition", "1/3")
    durable = "geofence_p1_location_fused_"
    try:
        assert wait_until(lambda: "started: on NATS" in log.read_text(), 60), log.read_text()
        asyncio.run(js_publish(cluster.urls, [("region.cmd", region_add())]
                               + drive(walker, T0, [-2_000] * 3 + [0] * 5)     # walks in: enter
                               + drive(parked, T0, [0] * 8)                    # inside from the start: silent
                               + drive(visitor, T0, [-2_000] * 8)))            # outside, decided
        assert wait_until(lambda: asyncio.run(consumer_done(cluster.urls, "LOCUS_FIXES", durable)), 60)
        before = wait_until(lambda: asyncio.run(stored(cluster.urls, "region.event.>")), 30)
        assert crossings(before) == [(walker, "enter")]
        service.kill()
        service.wait()

        service = geofence(cluster, tmp_path / "host-b", log, "--partition", "1/3")
        assert wait_until(lambda: log.read_text().count("started: on NATS") == 2, 60), log.read_text()
        assert "state from LOCUS_GEOFENCE: 1 region(s), 3 device(s)" in log.read_text()
        assert not list((tmp_path / "host-b").iterdir()), "host B keeps nothing on its disk"
        asyncio.run(js_publish(cluster.urls, drive(walker, T0 + 20, [0] * 8)           # stays inside: nothing
                               + drive(parked, T0 + 20, [-2_000] * 8)                  # leaves: exit
                               + drive(visitor, T0 + 20, [0] * 8)))                    # comes in: enter
        assert wait_until(lambda: asyncio.run(consumer_done(cluster.urls, "LOCUS_FIXES", durable)), 60)
        after = asyncio.run(stored(cluster.urls, "region.event.>"))[len(before):]
        assert crossings(after) == sorted([(parked, "exit"), (visitor, "enter")]), after
    finally:
        stop(service)
