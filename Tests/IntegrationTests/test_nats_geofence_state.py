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
from nats_support import Cluster, start_service, stop, wait_until

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


async def stored_events(urls):
    """Every region event in LOCUS_EVENTS."""
    client = await nats.connect(servers=urls)
    js = client.jetstream()
    sub = await js.subscribe("region.event.>", ordered_consumer=True)
    found = []
    while True:
        try:
            message = await sub.next_msg(timeout=2)
        except nats.errors.TimeoutError:
            break
        found.append(json.loads(message.data))
    await client.close()
    return found


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


def geofence(cluster, work, name, log):
    return start_service(cluster, "locus-geofence", "--db", str(work / f"{name}.sqlite"),
                         "--default-authorization", "always", "--debounce", "2", log=open(log, "a"))


def test_a_geofence_killed_before_its_event_was_stored_sends_it_at_its_next_start(cluster, tmp_path):
    log = tmp_path / "geofence.log"
    service = geofence(cluster, tmp_path, "g", log)
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
        service = geofence(cluster, tmp_path, "g", log)
        assert wait_until(lambda: "kept by an earlier run" in log.read_text(), 60), log.read_text()
        # The restarted process handles the re-delivered inside fixes too: no second enter.
        assert wait_until(lambda: asyncio.run(consumer_done(cluster.urls, "LOCUS_FIXES", "geofence_main_location_fused_")), 60)
        events = asyncio.run(stored_events(cluster.urls))
        assert [(e["regionId"], e["device"], e["event"]) for e in events] == [("depot", DEVICE, "enter")]
    finally:
        stop(service)
