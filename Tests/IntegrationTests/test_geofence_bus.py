"""locus-geofence on a real bus: `locus regions` import/list/export/remove with
acknowledgements, and events for fixes published by a client."""
import json
import subprocess

import pytest

from conftest import envelope
from geofence_support import STORE, walk


@pytest.fixture
def geofence(bus, bin_path, runtime_dir):
    process = subprocess.Popen([str(bin_path / "locus-geofence"), "--default-authorization", "always",
                                "--health-interval", "0.5", "--db", str(runtime_dir / "geofence.db")],
                               env=bus.env, stderr=subprocess.DEVNULL)
    health = bus.subscriber("health.geofence")
    bus.wait_for(health, lambda topic, body: body["service"] == "geofence")
    health.close(0)
    yield process
    process.terminate()
    assert process.wait(timeout=10) == 0


def regions(bus, bin_path, *args):
    return subprocess.run([str(bin_path / "locus"), "regions", *args], env=bus.env, capture_output=True, text=True, timeout=60)


def test_import_list_export_remove_round_trip(bus, bin_path, geofence, tmp_path):
    collection = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"id": "store", "radius": 200, "dwell": 60},
         "geometry": {"type": "Point", "coordinates": [STORE[1], STORE[0]]}},
        {"type": "Feature", "id": "yard", "properties": {"devices": ["truck-1"]},
         "geometry": {"type": "Polygon", "coordinates": [[[121.40, 31.20], [121.41, 31.20], [121.41, 31.21], [121.40, 31.20]]]}},
        {"type": "Feature", "properties": {"id": "tiny", "radius": 20},
         "geometry": {"type": "Point", "coordinates": [121.5, 31.3]}},
    ]}
    source = tmp_path / "regions.geojson"
    source.write_text(json.dumps(collection))
    result = regions(bus, bin_path, "import", str(source), "--owner", "fleet")
    assert result.returncode == 0, result.stderr
    assert "imported 3 of 3" in result.stdout
    # Importing again is idempotent.
    assert regions(bus, bin_path, "import", str(source), "--owner", "fleet").returncode == 0

    listed = regions(bus, bin_path, "list", "--owner", "fleet")
    assert listed.returncode == 0
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == ["store", "tiny", "yard"]

    exported = json.loads(regions(bus, bin_path, "export", "--owner", "fleet").stdout)
    by_id = {f["properties"]["id"]: f for f in exported["features"]}
    assert by_id["store"]["properties"]["radius"] == 200 and by_id["store"]["properties"]["dwell"] == 60
    assert by_id["yard"]["properties"]["devices"] == ["truck-1"]
    assert by_id["yard"]["geometry"] == collection["features"][1]["geometry"]
    assert by_id["tiny"]["properties"]["radius"] == 20  # as given; the service monitors 100 m

    added = regions(bus, bin_path, "add", "--owner", "fleet", "--id", "small", "--circle", "121.5,31.3,10")
    assert added.returncode == 0 and "effective radius 100" in added.stdout
    failed = regions(bus, bin_path, "add", "--owner", "fleet", "--id", "huge", "--circle", "121.5,31.3,9000000")
    assert failed.returncode == 1 and "radiusTooLarge" in failed.stdout

    removed = regions(bus, bin_path, "remove", "--owner", "fleet", "yard", "tiny", "small", "never-there")
    assert removed.returncode == 0
    listed = regions(bus, bin_path, "list", "--owner", "fleet")
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == ["store"]


def test_no_geofence_means_exit_69(bus, bin_path):
    result = regions(bus, bin_path, "list", "--owner", "fleet", "--timeout", "0.3", "--attempts", "2")
    assert result.returncode == 69


def test_fixes_on_the_bus_produce_one_enter(bus, bin_path, geofence):
    assert regions(bus, bin_path, "add", "--owner", "shop", "--id", "store",
                   "--circle", f"{STORE[1]},{STORE[0]},200").returncode == 0
    events = bus.subscriber("region.event.shop")
    publisher = bus.publisher()
    for t, lat, lon in walk((31.2280, 121.4700), STORE, 1.4, 1_790_000_000):
        body = envelope("location", t=t, device="walker", source="fused", lat=lat, lon=lon, hacc=5)
        publisher.send_multipart([b"location.fused.walker", json.dumps(body).encode()])
    topic, event = bus.wait_for(events, lambda topic, body: body["type"] == "region.event")
    assert event["event"] == "enter" and event["device"] == "walker" and event["cause"] == "crossing"
    publisher.close(0)
    events.close(0)
