"""Helpers for the geofence scenario tests: building text-form input and running
locus-geofence --stdio on it."""
import json
import math
import subprocess
import tempfile

from geographiclib.geodesic import Geodesic

from conftest import bin_dir

T0 = 1_790_000_000.0
STORE = (31.2304, 121.4737)  # lat, lon of the seed's store fence (radius 200 m)


class Script:
    """Accumulates text-form lines with unique ids and increasing times."""

    def __init__(self):
        self.lines = []
        self.counter = 0

    def add(self, topic, type_, t, **fields):
        self.counter += 1
        body = {"v": 1, "type": type_, "id": f"in-{self.counter}", "t": t, "src": "test/script", "seq": self.counter}
        body.update(fields)
        self.lines.append(f"{topic} {json.dumps(body)}")
        return body["id"]

    def fix(self, device, t, lat, lon, hacc=5.0):
        return self.add(f"location.fused.{device}", "location", t, device=device, source="fused",
                        lat=lat, lon=lon, hacc=hacc)

    def circle(self, owner, region_id, lat, lon, radius, t, **extra):
        region = {"id": region_id, "shape": {"type": "Circle", "center": [lon, lat], "radius": radius}}
        region.update(extra)
        return self.add("region.cmd", "region.add", t, owner=owner, region=region)

    def shape(self, owner, region_id, geometry, t):
        return self.add("region.cmd", "region.add", t, owner=owner, region={"id": region_id, "shape": geometry})

    def request_state(self, owner, t, **extra):
        return self.add("region.cmd", "region.requestState", t, owner=owner, **extra)

    def auth(self, client, status, t):
        return self.add(f"auth.status.{client}", "auth.status", t, client=client, status=status, accuracy="full")

    def raw(self, line):
        self.lines.append(line)

    def text(self):
        return "\n".join(self.lines) + "\n"


def run_stdio(script, *args, authorized=True):
    """Runs the service on the script; returns (exit status, [(topic, body)], stderr)."""
    extra = ["--default-authorization", "always"] if authorized else []
    # Input from a file, not a pipe: the shared runtime's poller does not yet see a pipe's
    # end (Linux reports POLLHUP without POLLIN), so piped input would never finish.
    with tempfile.TemporaryFile("w+") as source:
        source.write(script.text())
        source.seek(0)
        result = subprocess.run([str(bin_dir() / "locus-geofence"), "--stdio", *extra, *args],
                                stdin=source, capture_output=True, text=True, timeout=300)
    return result.returncode, parse(result.stdout), result.stderr


def parse(text):
    messages = []
    for line in text.splitlines():
        if line.strip():
            topic, body = line.split(" ", 1)
            messages.append((topic, json.loads(body)))
    return messages


def events(messages, kind=None):
    found = [b for t, b in messages if b["type"] == "region.event"]
    return [e for e in found if kind is None or e["event"] == kind]


def walk(start, end, speed, t0, step_s=1.0):
    """(t, lat, lon) every step along the geodesic from start to end at `speed` m/s."""
    line = Geodesic.WGS84.InverseLine(start[0], start[1], end[0], end[1])
    points = []
    n = int(math.ceil(line.s13 / (speed * step_s)))
    for i in range(n + 1):
        position = line.Position(min(i * speed * step_s, line.s13))
        points.append((t0 + i * step_s, position["lat2"], position["lon2"]))
    return points


def distance(a_lat, a_lon, b_lat, b_lon):
    return Geodesic.WGS84.Inverse(a_lat, a_lon, b_lat, b_lon)["s12"]
