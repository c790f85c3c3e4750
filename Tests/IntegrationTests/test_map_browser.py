"""locus map in a real headless chromium: the stack (bus, sim provider, fusion, geofence, map)
runs as processes, and the test asserts on the page's DOM, not on pixels."""
import json
import math
import os
import subprocess
import time

import pytest

from conftest import REPO, bin_dir, envelope, stop_process
from test_map_cdp import Browser, chromium_path

STORE_LAT, STORE_LON, STORE_RADIUS = 31.2304, 121.4737, 150.0
START = (31.2280, 121.4700)


def distance_m(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(a))


class Processes:
    def __init__(self):
        self.running = []

    def start(self, args, env, **kwargs):
        process = subprocess.Popen(args, env=env, **kwargs)
        self.running.append(process)
        return process

    def stop(self):
        for process in reversed(self.running):
            stop_process(process)


@pytest.fixture
def processes():
    group = Processes()
    yield group
    group.stop()


def start_map(processes, bus, *args):
    """Starts `locus map` on a free port and returns its URL (its first line on stdout)."""
    process = processes.start([str(bin_dir() / "locus"), "map", "--listen", "127.0.0.1:0", *args], bus.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = process.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), process.stderr.read()
    return url


def need_browser():
    if chromium_path() is None:
        if os.environ.get("LOCUS_SKIP_BROWSER") == "1":
            pytest.skip("LOCUS_SKIP_BROWSER=1 and no chromium")
        raise AssertionError("chromium is not installed (scripts/install-deps.sh installs it)")


def test_page_follows_the_stack_in_a_real_browser(bus, processes, tmp_path):
    need_browser()
    url = start_map(processes, bus)
    processes.start([str(bin_dir() / "locus-fusion"), "--state", str(tmp_path / "fusion"), "--health-interval", "1"], bus.env)
    processes.start([str(bin_dir() / "locus-geofence"), "--db", str(tmp_path / "regions.sqlite"), "--debounce", "2",
                     "--default-authorization", "always", "--health-interval", "1"], bus.env)
    replies = bus.subscriber("region.state.test")
    browser = Browser()
    try:
        browser.call("Page.enable")
        browser.call("Page.navigate", url=url)
        browser.wait_for("document.body && document.body.dataset.connected === 'true'")
        publisher = bus.publisher()
        shape = {"type": "Circle", "center": [STORE_LON, STORE_LAT], "radius": STORE_RADIUS}
        command = envelope("region.add", owner="test", region={"id": "store", "shape": shape})
        # The geofence may not have subscribed yet: repeat the (idempotent) command until it answers.
        for _ in range(100):
            publisher.send_multipart([b"region.cmd", json.dumps(command).encode()])
            if bus.receive(replies, timeout=0.2):
                break
        browser.wait_for("!!document.querySelector('.region[data-region=\"store\"]')")

        processes.start([str(bin_dir() / "locus-provider"), "sim", "--device-id", "car",
                         "--waypoints", f"{START[0]},{START[1]};{STORE_LAT},{STORE_LON}",
                         "--mps", "30", "--hz", "5", "--hacc", "4", "--seed", "3"], bus.env)

        # The marker appears, then moves: its geographic position, its update count and its track.
        first = browser.wait_for("(() => { const d = document.getElementById('device-car');"
                                 " return d && {lat: d.dataset.lat, lon: d.dataset.lon, updates: +d.dataset.updates}; })()")
        moved = browser.wait_for(
            "(() => { const d = document.getElementById('device-car');"
            f" return d.dataset.lat !== '{first['lat']}' && +d.dataset.updates > {first['updates']}"
            " && {lat: +d.dataset.lat, lon: +d.dataset.lon}; })()")
        assert distance_m(float(first["lat"]), float(first["lon"]), moved["lat"], moved["lon"]) > 1
        assert int(browser.evaluate("+document.getElementById('track-car').dataset.points")) >= 2

        # With the view held still (zoom out leaves fit mode), the marker moves on screen too.
        browser.evaluate("document.getElementById('zoom-out').click()")
        assert browser.evaluate("document.body.dataset.mode") == "free"
        before = browser.wait_for("(() => { const d = document.getElementById('device-car'); return [d.dataset.x, d.dataset.y]; })()")
        browser.wait_for(f"(() => {{ const d = document.getElementById('device-car'); return d.dataset.x !== '{before[0]}' || d.dataset.y !== '{before[1]}'; }})()")
        browser.evaluate("document.getElementById('fit').click()")

        # The real geofence decides the enter event from the fused fixes.
        publisher.send_multipart([b"motion.car", json.dumps(envelope(
            "motion", device="car", activity="automotive", confidence="high")).encode()])
        publisher.send_multipart([b"location.fused.van", json.dumps(envelope(
            "location", device="van", source="fused", mode="dr", lat=31.2290, lon=121.4720, hacc=35.0, tier="medium")).encode()])

        entered = browser.wait_for("(() => { const li = document.querySelector('#event-list li.event[data-event=\"enter\"]');"
                                   " return li && {region: li.dataset.region, device: li.dataset.device, text: li.textContent}; })()")
        assert entered["region"] == "store" and entered["device"] == "car" and entered["text"].startswith("enter store · car")
        assert browser.wait_for("document.querySelector('.region[data-region=\"store\"]').dataset.state") == "inside"
        assert browser.evaluate("document.querySelectorAll('#event-markers .event-enter').length") == 1
        assert browser.wait_for("document.getElementById('device-car').dataset.activity") == "automotive"
        row = browser.evaluate("[...document.querySelectorAll('#device-table tr[data-device=\"car\"] td')].map(td => td.textContent)")
        assert row[1].startswith("high accuracy ≤ 10 m") and row[2].startswith("fused") and row[3] == "automotive (high)"
        banner = browser.wait_for("(() => { const b = document.getElementById('banner'); return !b.hidden && b.textContent; })()")
        assert banner == "van: dead reckoning, no fresh fix"
        assert browser.evaluate("document.getElementById('device-car').classList.contains('degraded')") is False
        # A late fix (history uploaded after newer ones) joins the van's track; the marker stays on the newest fix.
        van_lat = browser.evaluate("document.getElementById('device-van').dataset.lat")
        publisher.send_multipart([b"location.late.van", json.dumps(envelope(
            "location", t=time.time() - 120, device="van", source="gps", lat=31.2280, lon=121.4710, hacc=5.0)).encode()])
        assert browser.wait_for("+document.getElementById('track-van').dataset.points === 2")
        assert browser.evaluate("document.getElementById('device-van').dataset.lat") == van_lat

        artifacts = REPO / ".build" / "test-artifacts"
        artifacts.mkdir(parents=True, exist_ok=True)
        png = browser.screenshot(artifacts / "map.png")
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        assert (width, height) == (1280, 800)
    finally:
        browser.close()
