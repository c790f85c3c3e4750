#!/usr/bin/env python3
"""Chaos test driver for Locus (docs/reliability.md).

Runs the whole stack under `locus up` on private endpoints while a simulated car drives a
long, accelerated route past many regions, SIGKILLs a random service at random moments,
and compares the notifications that reached the JSONL sink with a reference computed by
the same programs in a `--stdio` pipeline without faults.

    scripts/chaos.py                  # CI size: 100 kills in about 2.7 minutes
    scripts/chaos.py long             # 600 kills over about 16 minutes (also --long)
    scripts/chaos.py --kills 20 --route-seconds 600 --keep /tmp/chaos   # keep the files

Exit status 0 when the comparison holds (see `compare`), 1 otherwise; the report is JSON
on stdout.
"""
import argparse
import difflib
import json
import math
import os
import pathlib
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
DEVICE = "chaos-car"
OWNER = "chaos"
START_T = 1_790_000_000.0  # fixed fix time of the route's first point: deterministic input
ORIGIN = (31.10, 121.30)  # lat, lon where the route begins
EARTH_M_PER_DEG = 111_320.0
# Which services the driver may kill (every one, the bus too: see reliability.md).
TARGETS = ("locus-bus", "locus-provider", "locus-fusion", "locus-geofence", "locus-notifier")


def bin_dir():
    return pathlib.Path(os.environ.get("LOCUS_BIN", REPO / ".build" / "debug"))


# MARK: scenario

class Scenario:
    """A staircase route (legs east then north) with a circle centred on it every
    `spacing_m`, plus decoy regions off the route; all derived from the arguments."""

    def __init__(self, route_seconds, speed, mps=15.0, radius_m=400.0, spacing_m=1500.0,
                 leg_m=6000.0, decoys=200, seed=7, debounce_s=3.0):
        self.route_seconds = route_seconds
        self.speed = speed
        self.mps = mps
        self.radius_m = radius_m
        self.seed = seed
        self.debounce_s = debounce_s
        length_m = route_seconds * mps
        self.waypoints = [ORIGIN]
        lat, lon = ORIGIN
        covered = 0.0
        leg = 0
        while covered < length_m:
            step = min(leg_m, length_m - covered)
            lat, lon = offset(lat, lon, step if leg % 2 == 0 else 0.0, step if leg % 2 == 1 else 0.0)
            self.waypoints.append((lat, lon))
            covered += step
            leg += 1
        self.regions = []
        along = spacing_m / 2
        while along < length_m - spacing_m / 2:
            lat, lon = point_along(self.waypoints, along)
            self.regions.append((f"r{len(self.regions):03d}", lat, lon, radius_m))
            along += spacing_m
        rng = random.Random(seed)
        for index in range(decoys):
            base = point_along(self.waypoints, rng.uniform(0, length_m))
            lat, lon = offset(base[0], base[1], rng.uniform(-20_000, -3_000), rng.uniform(3_000, 20_000))
            self.regions.append((f"decoy{index:03d}", lat, lon, rng.uniform(100, 2_000)))

    def provider_arguments(self):
        return ["sim", "--waypoints", ";".join(f"{lat:.6f},{lon:.6f}" for lat, lon in self.waypoints),
                "--mps", str(self.mps), "--hz", "1", "--hacc", "5", "--seed", str(self.seed),
                "--start", str(int(START_T)), "--device-id", DEVICE, "--source", "gps"]

    def region_lines(self):
        lines = []
        for index, (region_id, lat, lon, radius) in enumerate(self.regions, start=1):
            body = {"v": 1, "type": "region.add", "id": f"chaos-add-{index}", "t": START_T - 10,
                    "src": "chaos/driver", "seq": index, "owner": OWNER,
                    "region": {"id": region_id, "shape": {"type": "Circle", "center": [lon, lat], "radius": radius}}}
            lines.append("region.cmd " + json.dumps(body))
        return "\n".join(lines) + "\n"

    def geofence_arguments(self, db):
        return ["--db", str(db), "--default-authorization", "always", "--debounce", str(self.debounce_s)]


def offset(lat, lon, east_m, north_m):
    return (lat + north_m / EARTH_M_PER_DEG,
            lon + east_m / (EARTH_M_PER_DEG * math.cos(math.radians(lat))))


def point_along(waypoints, distance_m):
    """The point `distance_m` along the polyline (equirectangular legs are short enough)."""
    for (a_lat, a_lon), (b_lat, b_lon) in zip(waypoints, waypoints[1:]):
        east = (b_lon - a_lon) * EARTH_M_PER_DEG * math.cos(math.radians(a_lat))
        north = (b_lat - a_lat) * EARTH_M_PER_DEG
        length = math.hypot(east, north)
        if distance_m <= length:
            f = distance_m / length
            return a_lat + f * (b_lat - a_lat), a_lon + f * (b_lon - a_lon)
        distance_m -= length
    return waypoints[-1]


# MARK: reference

def run_step(program, arguments, stdin_path, stdout_path, cwd):
    """One `--stdio` stage: input from a file (the runtime needs a file, not a pipe, to see EOF)."""
    with open(stdin_path) as source, open(stdout_path, "w") as sink:
        result = subprocess.run([str(bin_dir() / program), "--stdio", *arguments], stdin=source, stdout=sink,
                                stderr=subprocess.PIPE, text=True, cwd=cwd, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"{program} --stdio exited {result.returncode}: {result.stderr[-2000:]}")


def prepare_regions(scenario, work, db):
    """Fills a geofence database with every region (the same way for both runs)."""
    regions = work / "regions.txt"
    regions.write_text(scenario.region_lines())
    run_step("locus-geofence", scenario.geofence_arguments(db), regions, work / "regions-added.txt", work)
    added = sum(1 for line in (work / "regions-added.txt").read_text().splitlines() if '"region.added"' in line)
    if added != len(scenario.regions):
        raise RuntimeError(f"only {added} of {len(scenario.regions)} regions were added")
    return db


def reference(scenario, work):
    """provider sim --stdio | fusion --stdio | geofence --stdio | notifier --stdio, through files."""
    ref = work / "reference"
    ref.mkdir()
    prepare_regions(scenario, ref, ref / "regions.sqlite")
    run_step("locus-provider", [*scenario.provider_arguments(), "--rate", "max"], os.devnull, ref / "raw.txt", ref)
    run_step("locus-fusion", ["--state", str(ref / "fusion")], ref / "raw.txt", ref / "fused.txt", ref)
    run_step("locus-geofence", scenario.geofence_arguments(ref / "regions.sqlite"), ref / "fused.txt",
             ref / "events.txt", ref)
    run_step("locus-notifier", ["--state", str(ref / "notifier"), "--sink", f"jsonl:{ref / 'sink.jsonl'}"],
             ref / "events.txt", ref / "notify.txt", ref)
    return read_sink(ref / "sink.jsonl")


def read_sink(path):
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# MARK: the run under faults

class Monitor(threading.Thread):
    """Records, with wall-clock receive times, every health message (to see when a restarted
    service is back: a health message from a new pid) and every region event on the bus."""

    def __init__(self, sub_endpoint):
        super().__init__(daemon=True)
        import zmq
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.SUB)
        self.socket.connect(sub_endpoint)
        for prefix in ("health.", "region.event."):
            self.socket.setsockopt_string(zmq.SUBSCRIBE, prefix)
        self.lock = threading.Lock()
        self.seen_pids = {}  # service -> {pid: first wall time seen}
        self.resent = {}  # (service, pid) -> the publisher's `resent` counter, latest health
        self.events = []  # (wall, body)
        self.stopping = False

    def run(self):
        while not self.stopping:
            if self.socket.poll(200) == 0:
                continue
            topic, payload = self.socket.recv_multipart()
            body = json.loads(payload)
            now = time.time()
            with self.lock:
                if body.get("type") == "health":
                    pid = (body.get("detail") or {}).get("pid")
                    service = topic.decode().split(".", 1)[1]
                    if pid is not None:
                        self.seen_pids.setdefault(service, {}).setdefault(int(pid), now)
                        resent = (body.get("counters") or {}).get("resent")
                        if resent is not None:
                            self.resent[(service, int(pid))] = resent
                elif body.get("type") == "region.event":
                    self.events.append((now, body))

    def ready_since(self, service, pid):
        with self.lock:
            return self.seen_pids.get(service, {}).get(pid)

    def close(self):
        self.stopping = True
        self.join(2)
        self.socket.close(0)
        self.context.term()


def children(parent_pid):
    """{program name: pid} of the running children of `locus up`."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid != parent_pid:
                continue
            argv0 = pathlib.Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")[0].decode()
        except (OSError, IndexError, ValueError):
            continue
        found[os.path.basename(argv0)] = int(entry)
    return found


def write_configs(directory, scenario, chaos_dir, bus_state=True):
    """Per-service config files for `locus up --config-dir`: the durable state of each service.
    `bus_state=False` runs the bus without `--state` (no saved replay ring, no restart grace).
    The route is a replay with fixed fix times (START_T), so fusion is told to trust them rather
    than re-time them by arrival as clock faults (`clock-fault`, docs/fusion.md)."""
    directory.mkdir()
    health = {"health-interval": 0.5}
    configs = {
        "bus": {**health, "state": str(chaos_dir / "bus")} if bus_state else health,
        "fusion": {**health, "state": str(chaos_dir / "fusion"), "clock-fault": 1e9},
        "geofence": {**health, "db": str(chaos_dir / "regions.sqlite"), "default-authorization": "always",
                     "debounce": scenario.debounce_s},
        "notifier": {**health, "state": str(chaos_dir / "notifier"), "sink": [f"jsonl:{chaos_dir / 'sink.jsonl'}"]},
    }
    for name, config in configs.items():
        (directory / f"{name}.json").write_text(json.dumps(config))


def wait_until(predicate, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def service_name(program):
    return program.removeprefix("locus-")


def run_with_faults(scenario, work, kills, rng, targets=TARGETS, log=print, bus_state=True):
    chaos = work / "chaos"
    chaos.mkdir()
    prepare_regions(scenario, chaos, chaos / "regions.sqlite")
    write_configs(chaos / "config", scenario, chaos, bus_state)
    pub, sub = f"ipc://{chaos}/pub", f"ipc://{chaos}/sub"
    env = dict(os.environ, LOCUS_PUB=pub, LOCUS_SUB=sub)
    route_wall = scenario.route_seconds / scenario.speed
    live_since = time.time() + 6
    provider = [*scenario.provider_arguments(), "--speed", str(scenario.speed), "--live-since", f"{live_since:.3f}",
                "--health-interval", "0.5", "--log-level", "warn"]
    up_log = open(chaos / "up.log", "w")
    up = subprocess.Popen([str(bin_dir() / "locus"), "up", "--bin", str(bin_dir()), "--only", "bus,fusion,geofence,notifier",
                           "--config-dir", str(chaos / "config"), "--healthy-after", "1", "--provider", " ".join(provider)],
                          env=env, stdout=up_log, stderr=subprocess.STDOUT)
    monitor = Monitor(sub)
    monitor.start()
    kill_log = []
    try:
        def all_ready():
            running = children(up.pid)
            return all(p in running and monitor.ready_since(service_name(p), running[p]) for p in TARGETS)
        if not wait_until(all_ready, live_since - time.time()):
            raise RuntimeError("the stack was not ready before the route began (see up.log)")
        time.sleep(max(0, live_since - time.time()))
        # Kill moments: uniform over the route, leaving its last 5 % for the final events.
        moments = sorted(live_since + rng.uniform(0.02, 0.95) * route_wall for _ in range(kills))
        for moment in moments:
            time.sleep(max(0, moment - time.time()))
            # A target that is still restarting from the previous kill is skipped for another
            # that is up: every kill then hits a service that was working.
            running, ready = killable(up, monitor, targets)
            if not ready:
                wait_until(lambda: killable(up, monitor, targets)[1], 30)
                running, ready = killable(up, monitor, targets)
                if not ready:
                    raise RuntimeError("no target was up for 30 s (see up.log)")
            program = rng.choice(ready)
            pid = running[program]
            os.kill(pid, signal.SIGKILL)
            kill_log.append({"program": program, "pid": pid, "wall": time.time()})
        time.sleep(max(0, live_since + route_wall - time.time()))
        # Every service back, then quiet: the last debounced events and deliveries.
        if not wait_until(all_ready_except_provider(up, monitor), 30):
            raise RuntimeError("a killed service did not come back within 30 s")
        settle(chaos / "sink.jsonl", quiet_seconds=3, timeout=30)
        for entry in kill_log:
            back = None
            for pid, since in monitor.seen_pids.get(service_name(entry["program"]), {}).items():
                if since > entry["wall"] and pid != entry["pid"] and (back is None or since < back):
                    back = since
            entry["back"] = back
    finally:
        up.send_signal(signal.SIGTERM)
        try:
            up.wait(30)
        except subprocess.TimeoutExpired:
            up.kill()
            up.wait()
        monitor.close()
        up_log.close()
    up_text = (chaos / "up.log").read_text(errors="replace")
    resent = {}
    for (service, _), count in monitor.resent.items():
        resent[service] = resent.get(service, 0) + count
    return {"sink": read_sink(chaos / "sink.jsonl"), "kills": kill_log, "events": monitor.events,
            "live_since": live_since, "resent": resent,
            "bus_reloads": [int(n) for n in re.findall(r"restarted: (\d+) event message", up_text)],
            "replay_timeouts": up_text.count("replayTimeout")}


# A restarted service is killed again only after it has worked this long (the run's `locus up
# --healthy-after`). A kill inside that second counts as a crash loop, and `locus up` backs off
# 1, 2, 4, 8, 16 s: a service kept down that long misses whole region crossings (53 s of route
# = 5.3 s here), which no restart logic can recover. Adding the bus made such chains common:
# while the bus is down no other service can show its health, so the first one back (often
# the bus itself) was the only target up and was killed again at once.
MIN_UPTIME_S = 1.0


def killable(up, monitor, targets):
    """({program: pid} of `locus up`'s children, the targets that are up and may be killed now)."""
    running = children(up.pid)
    now = time.time()
    ready = []
    for program in targets:
        since = monitor.ready_since(service_name(program), running[program]) if program in running else None
        if since is None or now - since < MIN_UPTIME_S:
            continue
        ready.append(program)
    return running, ready


def all_ready_except_provider(up, monitor):
    def check():
        running = children(up.pid)
        return all(p in running and monitor.ready_since(service_name(p), running[p])
                   for p in TARGETS if p != "locus-provider")
    return check


def settle(path, quiet_seconds, timeout):
    deadline = time.time() + timeout
    last = (-1, time.time())
    while time.time() < deadline:
        size = path.stat().st_size if path.exists() else 0
        if size != last[0]:
            last = (size, time.time())
        elif time.time() - last[1] >= quiet_seconds:
            return
        time.sleep(0.1)


# MARK: comparison

def transitions(sink):
    return [(n.get("region"), n.get("device"), n.get("kind")) for n in sink]


def compare(reference_sink, run, slack_seconds=1.0):
    """What the sink got under faults against the reference.

    Holds when no notification id repeats, nothing arrives that the reference lacks, the
    order is the reference's, and every reference notification is there. A missing one is
    listed with whether geofence published its event while the notifier was down (seen on
    the bus between the notifier's SIGKILL and the first health of its restarted process,
    ± `slack_seconds`) — a hint for diagnosis only: the bus replays such events
    (`bus.replay`), so no loss is excused."""
    sink = run["sink"]
    counts = {}
    for notification in sink:
        counts[notification["id"]] = counts.get(notification["id"], 0) + 1
    duplicates = sorted(i for i, c in counts.items() if c > 1)
    expected, got = transitions(reference_sink), transitions(sink)
    missing, extra = [], []
    matcher = difflib.SequenceMatcher(a=expected, b=got, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("delete", "replace"):
            missing.extend(reference_sink[i1:i2])
        if tag in ("insert", "replace"):
            extra.extend(sink[j1:j2])
    def windows_of(program):
        return [(k["wall"] - slack_seconds, (k["back"] or math.inf) + slack_seconds)
                for k in run["kills"] if k["program"] == program]
    windows, bus_windows = windows_of("locus-notifier"), windows_of("locus-bus")
    lost = []
    for notification in missing:
        # When geofence published the matching event in this run (the monitor saw it on the bus).
        published = [wall for wall, event in run["events"]
                     if (event.get("regionId"), event.get("device"), event.get("event"))
                     == (notification.get("region"), notification.get("device"), notification.get("kind"))]
        down = any(a <= wall <= b for wall in published for a, b in windows)
        bus_down = any(a <= wall <= b for wall in published for a, b in bus_windows)
        lost.append({**short(notification), "published_while_notifier_down": down,
                     "published_while_bus_restarting": bus_down, "seen_on_bus": bool(published)})
    downtimes = {}
    for kill in run["kills"]:
        if kill["back"] is not None:
            downtimes.setdefault(kill["program"], []).append(kill["back"] - kill["wall"])
    return {
        "ok": not duplicates and not extra and not lost and len(sink) > 0,
        "reference": len(reference_sink),
        "delivered": len(sink),
        "duplicates": duplicates,
        "extra": [short(n) for n in extra],
        "missing": lost,
        "kills": len(run["kills"]),
        "kills_by_service": {p: sum(1 for k in run["kills"] if k["program"] == p) for p in TARGETS},
        "not_back": sum(1 for k in run["kills"] if k["back"] is None),
        "downtime_seconds": {p: {"median": sorted(v)[len(v) // 2], "max": max(v)} for p, v in downtimes.items()},
        "events_on_bus": len({e.get("id") for _, e in run["events"]}),
        "event_copies_on_bus": len(run["events"]) - len({e.get("id") for _, e in run["events"]}),
        "resent_by_service": run.get("resent", {}),
        "bus_restarts_ring_reloaded": run.get("bus_reloads", []),
        "replay_timeouts": run.get("replay_timeouts", 0),
        "recovered_events": sum(1 for _, e in run["events"] if e.get("cause") == "recovered"),
    }


def short(notification):
    return {k: notification.get(k) for k in ("id", "kind", "region", "device", "t")}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--route-seconds", type=float, default=1500, help="fix time the route takes")
    parser.add_argument("--speed", type=float, default=10, help="replay time factor")
    parser.add_argument("--seed", type=int, default=1, help="seed of the kill moments and targets")
    parser.add_argument("mode", nargs="?", choices=["ci", "long"], default="ci",
                        help="ci: the arguments below; long: 600 kills over a 9000 s route (about 16 minutes)")
    parser.add_argument("--long", action="store_true", help="the same as the mode `long`")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated programs to kill")
    parser.add_argument("--no-bus-state", action="store_true",
                        help="run the bus without --state (no saved replay ring, no restart grace), to measure what they save")
    parser.add_argument("--keep", help="directory for the run's files (kept); default a temporary one, removed")
    args = parser.parse_args(argv)
    if args.long or args.mode == "long":
        args.kills, args.route_seconds = 600, 9000
    targets = tuple(t if t.startswith("locus-") else "locus-" + t for t in args.targets.split(","))
    work = pathlib.Path(args.keep) if args.keep else pathlib.Path(tempfile.mkdtemp(prefix="locus-chaos-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        scenario = Scenario(args.route_seconds, args.speed)
        reference_sink = reference(scenario, work)
        started = time.time()
        run = run_with_faults(scenario, work, args.kills, random.Random(args.seed), targets,
                              bus_state=not args.no_bus_state)
        report = compare(reference_sink, run)
        report["wall_seconds"] = round(time.time() - started, 1)
        report["regions"] = len(scenario.regions)
        (work / "report.json").write_text(json.dumps(report, indent=1))
        print(json.dumps(report, indent=1))
        return 0 if report["ok"] else 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
