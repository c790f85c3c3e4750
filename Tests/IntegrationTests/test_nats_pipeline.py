"""The fleet tier on a real three-node NATS cluster (docs/nats.md): a replayed drive through
provider → fusion (2 partitions) → geofence (3 partitions) → notifier gives the notifications
of the same inputs through the --stdio reference pipeline — also while the position stream's
leader node and geofence partitions are SIGKILLed, each partition coming back on another host."""
import asyncio
import json
import os
import subprocess
import sys
import time

import nats
import pytest

from conftest import REPO, bin_dir
from nats_support import Cluster, start_service, stop, wait_until

sys.path.insert(0, str(REPO / "scripts"))
import chaos  # noqa: E402  (the scenario and the reference pipeline of the chaos test)

DEVICES = [f"car.{n}" for n in range(4)]  # a dot in every id: the subject escaping is in the path


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path / "nats")
    yield c
    c.down()


def provider_arguments(scenario, device, seed):
    arguments = scenario.provider_arguments()
    arguments[arguments.index("--device-id") + 1] = device
    arguments[arguments.index("--seed") + 1] = str(seed)
    return arguments


def reference_sink(scenario, work):
    """Each device's provider --stdio, merged in fix-time order, then fusion | geofence | notifier --stdio."""
    ref = work / "reference"
    ref.mkdir()
    chaos.prepare_regions(scenario, ref, ref / "regions.sqlite")
    lines = []
    for index, device in enumerate(DEVICES):
        out = ref / f"raw-{index}.txt"
        chaos.run_step("locus-provider", [*provider_arguments(scenario, device, 7 + index), "--rate", "max"],
                       os.devnull, out, ref)
        lines += [(json.loads(line.split(" ", 1)[1])["t"], index, line) for line in out.read_text().splitlines()]
    (ref / "raw.txt").write_text("".join(line + "\n" for _, _, line in sorted(lines, key=lambda x: (x[0], x[1]))))
    chaos.run_step("locus-fusion", [], ref / "raw.txt", ref / "fused.txt", ref)
    chaos.run_step("locus-geofence", scenario.geofence_arguments(ref / "regions.sqlite"), ref / "fused.txt",
                   ref / "events.txt", ref)
    chaos.run_step("locus-notifier", ["--state", str(ref / "notifier"), "--sink", f"jsonl:{ref / 'sink.jsonl'}"],
                   ref / "events.txt", ref / "notify.txt", ref)
    return chaos.read_sink(ref / "sink.jsonl")


async def publish_regions(urls, scenario, partitions, timeout=120):
    """region.cmd through JetStream (acknowledged), the way a client adds regions; returns once
    every geofence partition has answered `region.added` for each."""
    client = await nats.connect(servers=urls)
    added = {}
    async def on_state(message):
        body = json.loads(message.data)
        if body.get("type") == "region.added":
            added[body["src"]] = added.get(body["src"], 0) + 1
    await client.subscribe(f"region.state.{chaos.OWNER}", cb=on_state)
    js = client.jetstream()
    lines = scenario.region_lines().splitlines()
    for line in lines:
        topic, body = line.split(" ", 1)
        await js.publish(topic, body.encode(), headers={"Nats-Msg-Id": json.loads(body)["id"]})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not (len(added) == partitions and all(v >= len(lines) for v in added.values())):
        await asyncio.sleep(0.1)
    await client.close()
    return added


def per_device(sink):
    out = {}
    for n in sink:
        out.setdefault(n.get("device"), []).append((n.get("region"), n.get("kind")))
    return out


def run_pipeline(cluster, scenario, work, provider_pace=("--rate", "max"), killer=None, env_extra=None):
    """Starts every stage on the cluster (with `env_extra` in every service's environment),
    replays the drive, returns the notifier's sink."""
    logs = work / "logs"
    logs.mkdir()
    log = lambda name: open(logs / f"{name}.log", "w")  # noqa: E731
    services = {}
    hosts = iter(range(1000))
    def geofence(k):
        # No --db: the state lives in the cluster's key-value bucket, and every start (the
        # first, and each restart after a kill) is on "another host", an empty directory.
        host = work / f"host{next(hosts)}"
        host.mkdir()
        return start_service(cluster, "locus-geofence", "--default-authorization", "always",
                             "--debounce", str(scenario.debounce_s), "--partition", f"{k}/3",
                             log=open(logs / f"geofence{k}.log", "a"), cwd=host, env_extra=env_extra)
    for k in range(3):
        services[f"geofence{k}"] = geofence(k)
    for k in range(2):
        # The drive is a replay with fixed fix times: fusion trusts them instead of re-timing them as clock faults.
        services[f"fusion{k}"] = start_service(cluster, "locus-fusion", "--partition", f"{k}/2", "--clock-fault", "1e9",
                                               log=log(f"fusion{k}"), env_extra=env_extra)
    sink = work / "sink.jsonl"
    services["notifier"] = start_service(cluster, "locus-notifier", "--state", str(work / "notifier"),
                                         "--sink", f"jsonl:{sink}", log=log("notifier"), env_extra=env_extra)
    try:
        def started():
            return all("started" in (logs / f"{name}.log").read_text() for name in services)
        assert wait_until(started, 60), f"services did not start (logs in {logs})"
        added = asyncio.run(publish_regions(cluster.urls, scenario, partitions=3))
        assert len(added) == 3 and all(v == len(scenario.regions) for v in added.values()), added
        providers = [start_service(cluster, "locus-provider", *provider_arguments(scenario, device, 7 + index),
                                   *provider_pace, log=log(f"provider{index}"), env_extra=env_extra)
                     for index, device in enumerate(DEVICES)]
        if killer:
            killer = killer(cluster, services, geofence)
            killer.run(until=lambda: all(p.poll() is not None for p in providers))
        for process in providers:
            assert process.wait(timeout=300) == 0, "a provider failed (logs in " + str(logs) + ")"
        chaos.settle(sink, quiet_seconds=5, timeout=240)
        for name, process in services.items():
            assert process.poll() is None, f"{name} died (logs in {logs})"
    finally:
        for process in services.values():
            stop(process)
    return chaos.read_sink(sink), killer


def test_replayed_drive_over_nats_equals_the_stdio_reference(cluster, tmp_path):
    scenario = chaos.Scenario(route_seconds=900, speed=10, decoys=50)
    expected = reference_sink(scenario, tmp_path)
    assert len(expected) >= 4 * 8, "the reference drive crosses regions"
    got, _ = run_pipeline(cluster, scenario, tmp_path)
    ids = [n["id"] for n in got]
    assert len(ids) == len(set(ids)), "a notification was delivered twice"
    assert per_device(got) == per_device(expected), "per device, the same notifications in the same order"
    assert len(got) == len(expected)


async def stream_leader(urls, stream):
    client = await nats.connect(servers=urls, connect_timeout=2, max_reconnect_attempts=2)
    try:
        info = await client.jetstream().stream_info(stream)
        return info.cluster.leader if info.cluster else None
    finally:
        await client.close()


class Killer:
    """SIGKILLs, in turn, the nats-server leading the position stream (restarted 1 s later,
    once the cluster is whole again) and a geofence partition (restarted at once on another
    host: an empty directory, its state in the cluster), until the drive ends."""

    def __init__(self, cluster, services, restart_geofence):
        self.cluster = cluster
        self.services = services
        self.restart_geofence = restart_geofence
        self.kills = []

    def run(self, until, pause=1.0):
        turn = 0
        while not until():
            if turn % 2 == 0:
                leader = asyncio.run(stream_leader(self.cluster.urls[turn // 2 % 3:] + self.cluster.urls, "LOCUS_FIXES"))
                if leader:
                    node = int(leader.lstrip("n"))
                    os.kill(self.cluster.pid(node), 9)
                    self.kills.append(("nats-server", leader, time.time()))
                    time.sleep(pause)
                    self.cluster.restart(node)
            else:
                k = turn // 2 % 3
                process = self.services[f"geofence{k}"]
                process.kill()
                process.wait()
                self.kills.append(("locus-geofence", k, time.time()))
                self.services[f"geofence{k}"] = self.restart_geofence(k)
                time.sleep(pause)
            turn += 1


def test_same_notifications_while_the_stream_leader_and_geofence_partitions_are_killed(cluster, tmp_path):
    scenario = chaos.Scenario(route_seconds=1500, speed=10, decoys=50)
    expected = reference_sink(scenario, tmp_path)
    got, killer = run_pipeline(cluster, scenario, tmp_path, provider_pace=("--speed", "15"), killer=Killer)
    ids = [n["id"] for n in got]
    assert len(ids) == len(set(ids)), "a notification was delivered twice"
    assert per_device(got) == per_device(expected), f"after {len(killer.kills)} kills"
    assert len(killer.kills) >= 20, killer.kills
