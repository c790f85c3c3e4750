"""Storage faults: a state directory on a small tmpfs that fills up mid-run and is freed a
few seconds later. What was acknowledged survives a restart, events are delivered exactly
once and in order, nothing is dropped. Needs root (mount); skips with the reason otherwise."""
import os
import signal
import time

from storage_support import StdioService, delivered, fill, region_add, region_event, small_fs, stored_regions  # noqa: F401


def test_geofence_acknowledges_only_stored_regions_through_a_full_disk(small_fs):
    db = small_fs / "g" / "geofence.db"
    db.parent.mkdir()
    service = StdioService("locus-geofence", "--default-authorization", "always", "--db", str(db))
    service.feed([region_add(i) for i in range(1, 301)])
    assert service.wait_for(lambda: sum(m["type"] == "region.added" for m in service.messages()) == 300)
    filler = fill(small_fs)
    writer = service.feed([region_add(i) for i in range(301, 1501)], close=True)
    assert service.wait_for(lambda: any(m["type"] == "error" and m["code"] == "storage" for m in service.messages()), 30)
    time.sleep(3)
    os.unlink(filler)
    writer.join(60)
    assert service.process.wait(timeout=120) == 0
    messages = service.messages()
    acknowledged = {m["region"]["id"] for m in messages if m["type"] == "region.added"}
    failed = [m for m in messages if m["type"] == "region.failed"]
    reports = [m for m in messages if m["type"] == "error" and m["code"] == "storage"]
    assert len(reports) == 1, "one report per episode"
    assert all(f["code"] == "storage" and str(db) in f["message"] for f in failed)
    assert len(acknowledged) + len(failed) == 1500, "every command answered once"
    assert len(acknowledged) > 1000, "commands after the episode were taken again"
    assert "holding input back" in "".join(service.err) and "taking input again" in "".join(service.err)
    stored = stored_regions(db)
    assert acknowledged <= stored, f"acknowledged but lost: {sorted(acknowledged - stored)[:5]}"
    assert not stored & {f["regionId"] for f in failed}, "a failed region was stored"


def test_notifier_delivers_each_event_once_in_order_through_a_full_disk(small_fs, tmp_path):
    sink = tmp_path / "sink.jsonl"
    service = StdioService("locus-notifier", "--state", str(small_fs / "nt"), "--sink", f"jsonl:{sink}")
    service.feed([region_event(i) for i in range(1, 201)])
    assert service.wait_for(lambda: len(delivered(sink)) == 200)
    filler = fill(small_fs)
    writer = service.feed([region_event(i) for i in range(201, 1001)], close=True)
    time.sleep(3)
    os.unlink(filler)
    writer.join(60)
    assert service.process.wait(timeout=120) == 0
    assert delivered(sink) == [f"ev-{i}" for i in range(1, 1001)]
    errors = "".join(service.err)
    assert "holding input back" in errors and "taking input again" in errors


def test_kill_while_the_disk_is_full_loses_nothing_acknowledged_and_repeats_nothing(small_fs, tmp_path):
    sink = tmp_path / "sink.jsonl"
    state = small_fs / "nt"
    service = StdioService("locus-notifier", "--state", str(state), "--sink", f"jsonl:{sink}")
    service.feed([region_event(i) for i in range(1, 201)])
    assert service.wait_for(lambda: len(delivered(sink)) == 200)
    filler = fill(small_fs)
    service.feed([region_event(i) for i in range(201, 601)])
    assert service.wait_for(lambda: "holding input back" in "".join(service.err), 30)
    service.process.send_signal(signal.SIGKILL)
    service.process.wait(timeout=10)
    os.unlink(filler)
    # Restarted on the same outbox, the events arrive again (as the bus's replay would send them).
    again = StdioService("locus-notifier", "--state", str(state), "--sink", f"jsonl:{sink}")
    again.feed([region_event(i) for i in range(1, 601)], close=True)
    assert again.process.wait(timeout=120) == 0
    assert delivered(sink) == [f"ev-{i}" for i in range(1, 601)]

    db = small_fs / "g" / "geofence.db"
    db.parent.mkdir()
    geofence = StdioService("locus-geofence", "--default-authorization", "always", "--db", str(db))
    geofence.feed([region_add(i) for i in range(1, 201)])
    assert geofence.wait_for(lambda: sum(m["type"] == "region.added" for m in geofence.messages()) == 200)
    filler = fill(small_fs)
    geofence.feed([region_add(i) for i in range(201, 601)])
    assert geofence.wait_for(lambda: "holding input back" in "".join(geofence.err), 30)
    acknowledged = {m["region"]["id"] for m in geofence.messages() if m["type"] == "region.added"}
    geofence.process.send_signal(signal.SIGKILL)
    geofence.process.wait(timeout=10)
    os.unlink(filler)
    assert acknowledged <= stored_regions(db)


def test_the_notifier_outbox_log_stays_bounded_under_a_flood(tmp_path):
    """A passive checkpoint never catches up with a flood (the log grew by about 26 KB an
    event, 80 MB for 3 000); past its limit (8 192 frames, 32 MiB) the log is truncated, so
    its size does not follow the flood's length."""
    state, sink = tmp_path / "nt", tmp_path / "sink.jsonl"
    service = StdioService("locus-notifier", "--state", str(state), "--sink", f"jsonl:{sink}")
    wal = state / "outbox.sqlite-wal"
    count = 8000
    service.feed([region_event(i) for i in range(1, count + 1)], close=True)
    peak = 0
    while service.process.poll() is None:
        try:
            peak = max(peak, wal.stat().st_size)
        except OSError:
            pass
        time.sleep(0.005)
    print(f"outbox log peak: {peak / 1e6:.1f} MB for {count} events")
    assert service.process.returncode == 0
    assert delivered(sink) == [f"ev-{i}" for i in range(1, count + 1)]
    assert 0 < peak < 48e6, f"the outbox log grew to {peak / 1e6:.1f} MB"
