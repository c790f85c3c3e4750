#!/usr/bin/env python3
"""Chaos test driver for Locus (docs/reliability.md).

Runs the whole stack under `locus up` on private endpoints while a simulated car drives a
long, accelerated route past many regions, SIGKILLs a random service at random moments,
and compares the notifications that reached the JSONL sink with a reference computed by
the same programs in a `--stdio` pipeline without faults.

    scripts/chaos.py                  # CI size: 100 kills in about 2.5 minutes
    scripts/chaos.py --long           # 600 kills over about 15 minutes
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
# Which services the driver may kill, and why the bus is not among them: see reliability.md.
TARGETS = ("locus-provider", "locus-fusion", "locus-geofence", "locus-notifier")


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
