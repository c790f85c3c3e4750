"""Fleet scale-out: several instances of a service split the devices, none twice, none missed."""
import json
import subprocess
import time

from conftest import bin_dir, envelope


def start(bus, program, *args):
    return subprocess.Popen([str(bin_dir() / program), *args, "--health-interval", "0.5"], env=bus.env,
                            stderr=subprocess.DEVNULL)


def test_two_fusion_shards_split_devices_without_duplicates_or_gaps(bus):
    health = bus.subscriber("health.fusion")
    shards = [start(bus, "locus-fusion", "--shard", f"{k}/2") for k in range(2)]
    try:
        seen_sources = set()
        deadline = time.monotonic() + 20
        while len(seen_sources) < 2 and time.monotonic() < deadline:
            message = bus.receive(health, timeout=1)
            if message:
                seen_sources.add(message[1]["src"])
        assert seen_sources == {"fusion/shard0", "fusion/shard1"}

        fused = bus.subscriber("location.fused.")
        pub = bus.publisher()
        devices = [f"truck-{n}" for n in range(40)]
        t0 = time.time()
        sources = {}
        counts = {}
        # A first round until every device has been answered (subscriptions settle), then a counted round.
        for round_number in range(200):
            for device in devices:
                body = envelope("location", t=t0 + round_number, device=device, source="gps",
                                lat=31.2 + round_number * 1e-4, lon=121.4, hacc=5.0)
                pub.send_multipart([f"location.raw.{device}".encode(), json.dumps(body).encode()])
            end = time.monotonic() + 0.2
            while time.monotonic() < end:
                message = bus.receive(fused, timeout=0.05)
                if message:
                    topic, body = message
                    device = topic.split(".", 2)[2]
                    sources.setdefault(device, set()).add(body["src"])
                    counts[device] = counts.get(device, 0) + 1
            if len(sources) == len(devices) and round_number >= 5:
                break
        assert set(sources) == set(devices), f"devices never fused: {set(devices) - set(sources)}"
        for device, srcs in sources.items():
            assert len(srcs) == 1, f"{device} handled by {srcs}"
        owners = {next(iter(s)) for s in sources.values()}
        assert owners == {"fusion/shard0", "fusion/shard1"}, "both shards take part"
    finally:
        for process in shards:
            process.terminate()
            assert process.wait(timeout=10) == 0
