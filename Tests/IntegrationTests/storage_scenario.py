"""One storage-fault episode on a real bus, for every kind of fault: the bus (`--state`), the
geofence (`--db`) and the notifier (`--state`) keep their state under one directory; region
commands and events go in before, during and after the fault. The caller says how the fault
begins and ends and how it is named in `health.<service>` and `error.<service>`."""
import shutil
import signal
import time

from conftest import Bus
from storage_support import Watch, add_body, delivered, event_body, publish, replay_all, start_service, stored_regions, wait_until

SERVICES = ("bus", "geofence", "notifier")


def run_episode(runtime_dir, state, tmp_path, begin, end, fault, health_shows=True):
    """`begin()` makes `state` fail, `end()` mends it (after two seconds). With `health_shows`,
    each service's health must show `degraded` naming `fault` during the episode and `ok`
    after; a fault mended at once by the service (a removed directory) is seen in its one
    error report instead. Afterwards: every command answered once, every command acknowledged
    before and after the episode kept (checked on a restart), every event delivered once in
    order, and a bus killed with -9 replays every event from its log."""
    bus = Bus(runtime_dir, ["--state", str(state / "bus")])
    db, sink = state / "g" / "geofence.db", tmp_path / "sink.jsonl"
    db.parent.mkdir()
    geofence = start_service("locus-geofence", bus, tmp_path / "geofence.log", "--default-authorization", "always", "--db", str(db))
    notifier = start_service("locus-notifier", bus, tmp_path / "notifier.log", "--state", str(state / "nt"), "--sink", f"jsonl:{sink}")
    try:
        watch = Watch(bus, "health.", "error.", "region.state.app")
        for service in SERVICES:
            watch.health(service, "ok")
        publisher = bus.publisher()
        time.sleep(0.5)  # the services' subscriptions reach the bus (checked: every command must be answered)

        def answered():
            return {b["region"]["id"] if b["type"] == "region.added" else b["regionId"]: b["type"]
                    for _, b in watch.seen if b["type"] in ("region.added", "region.failed")}

        def send(first, last):
            for i in range(first, last + 1):
                publish(publisher, "region.cmd", add_body(i))
                publish(publisher, "region.event.app", event_body(i))

        send(1, 100)
        wait_until(lambda: watch.drain(0.05) or len(answered()) == 100, 60, "the first region commands answered")
        wait_until(lambda: len(delivered(sink)) == 100, 60, "the first events delivered")
        mark = len(watch.seen)
        begin()
        send(101, 300)
        if health_shows:
            degraded = {service: watch.health(service, "degraded", since=mark, fault=fault) for service in SERVICES}
        else:
            for service in SERVICES:
                watch.until(lambda topic, body: topic == f"error.{service}" and body["code"] == "storage", since=mark,
                            what=f"the storage report of {service}")
        time.sleep(2)
        end()
        if health_shows:
            for service in SERVICES:
                watch.health(service, "ok", since=degraded[service])
        send(301, 400)
        wait_until(lambda: watch.drain(0.05) or len(answered()) == 400, 90, "every region command answered")
        wait_until(lambda: len(delivered(sink)) >= 400, 90, "every event delivered")
        watch.drain()
        assert delivered(sink) == [f"ev-{i}" for i in range(1, 401)], "each event once, in order"
        for service in SERVICES:
            reports = watch.reports(service)
            assert len(reports) == 1, f"{service}: one report per episode, not {len(reports)}"
            assert fault in reports[0]["message"], reports[0]["message"]
        acknowledged = {region for region, kind in answered().items() if kind == "region.added"}
        assert {f"r{i}" for i in [*range(1, 101), *range(301, 401)]} <= acknowledged, "commands before and after the episode acknowledged"
        publisher.close(0)
        watch.sock.close(0)
    finally:
        for process in (geofence, notifier):
            process.terminate()
        exits = [process.wait(timeout=30) for process in (geofence, notifier)]
        bus.process.send_signal(signal.SIGKILL)
        bus.process.wait(timeout=10)
        bus.context.destroy(linger=0)
        (tmp_path / "bus.log").write_text(bus.process.stderr.read())
        if (state / "bus" / "replay-ring.log").exists():
            shutil.copy(state / "bus" / "replay-ring.log", tmp_path / "replay-ring.log.at-kill")
    assert exits == [0, 0], f"geofence and notifier exit codes {exits} (logs in {tmp_path})"
    lost = acknowledged - stored_regions(db)
    assert not lost, f"acknowledged but lost: {sorted(lost)[:5]}"
    again = Bus(runtime_dir, ["--state", str(state / "bus")])
    try:
        replayed, expected = replay_all(again, "region.event."), [f"ev-{i}" for i in range(1, 401)]
        assert replayed == expected, (f"the restarted bus replayed {len(replayed)} events; missing "
                                      f"{[i for i in expected if i not in replayed][:10]}, out of order or extra: "
                                      f"{[i for i, j in zip(replayed, expected) if i != j][:10]}")
    finally:
        again.stop()
