"""Scenario tests for locus-geofence through --stdio (issue: geofence service)."""
import random

from geofence_support import STORE, T0, Script, distance, events, run_stdio, walk


def store_walk_script(hacc=5.0, dwell=None):
    script = Script()
    extra = {"dwell": dwell} if dwell is not None else {}
    script.circle("shop", "store", STORE[0], STORE[1], 200, T0, **extra)
    start = (31.2280, 121.4700)
    # On foot through the fence and out the far side, as far again as the approach.
    beyond = (2 * STORE[0] - start[0], 2 * STORE[1] - start[1])
    track = walk(start, beyond, 1.4, T0 + 1)
    for t, lat, lon in track:
        script.fix("walker", t, lat, lon, hacc)
    return script, track


def true_crossings(track, radius=200):
    """Times the walk crosses the circle, interpolated from the exact distances."""
    crossings = []
    previous = None
    for t, lat, lon in track:
        d = distance(STORE[0], STORE[1], lat, lon) - radius
        if previous is not None and (previous[1] < 0) != (d < 0):
            crossings.append(previous[0] + (t - previous[0]) * previous[1] / (previous[1] - d))
        previous = (t, d)
    return crossings


def test_store_fence_walk_enters_and_exits_once():
    script, track = store_walk_script()
    status, out, _ = run_stdio(script)
    assert status == 0
    enters, exits = events(out, "enter"), events(out, "exit")
    assert len(enters) == 1 and len(exits) == 1
    entry, exit_ = true_crossings(track)
    assert enters[0]["cause"] == "crossing" and enters[0]["state"] == "inside"
    assert exits[0]["cause"] == "crossing" and exits[0]["state"] == "outside"
    assert abs(enters[0]["crossingTime"] - entry) < 1.0
    assert abs(exits[0]["crossingTime"] - exit_) < 1.0
    # The deciding fix is inside (outside) with confidence and at least the debounce after the crossing.
    fix = enters[0]["location"]
    assert distance(STORE[0], STORE[1], fix["lat"], fix["lon"]) <= 200 - fix["hacc"]
    assert fix["t"] >= entry + 10 - 1
    assert enters[0]["owner"] == "shop" and enters[0]["regionId"] == "store" and enters[0]["device"] == "walker"
    replies = [b for t, b in out if t == "region.state.shop"]
    assert replies[0]["type"] == "region.added" and replies[0]["re"] == "in-1"


def test_dwell_fires_once_per_stay():
    script, track = store_walk_script(dwell=60)
    _, out, _ = run_stdio(script)
    dwells = events(out, "dwell")
    assert len(dwells) == 1
    entry, exit_ = true_crossings(track)
    assert entry + 60 <= dwells[0]["location"]["t"] < exit_


def test_registered_while_inside_gives_no_enter_and_state_says_inside():
    script = Script()
    for i in range(5):
        script.fix("clerk", T0 + i, STORE[0] + 0.0001, STORE[1], 8)
    script.circle("shop", "store", STORE[0], STORE[1], 200, T0 + 5)
    for i in range(6, 30):
        script.fix("clerk", T0 + i, STORE[0] - 0.0001, STORE[1] + 0.0001, 8)
    request = script.request_state("shop", T0 + 31, regionId="store")
    status, out, _ = run_stdio(script)
    assert status == 0
    assert events(out, "enter") == [] and events(out, "exit") == []
    states = events(out, "state")
    assert len(states) == 1
    assert states[0]["state"] == "inside" and states[0]["cause"] == "requested" and states[0]["re"] == request
    assert states[0]["device"] == "clerk"


def test_boundary_jitter_is_held_down():
    # A device standing on a 150 m circle's boundary with ±12 m of jitter, 1 Hz, 5 minutes.
    center = (48.8566, 2.3522)
    for seed in range(5):
        for hacc in (5.0, 10.0):
            rng = random.Random(seed)
            script = Script()
            script.circle("city", "fence", center[0], center[1], 150, T0)
            from geographiclib.geodesic import Geodesic
            for i in range(300):
                bearing = 40.0
                point = Geodesic.WGS84.Direct(center[0], center[1], bearing, 150 + rng.uniform(-12, 12))
                script.fix("pedestrian", T0 + 1 + i, point["lat2"], point["lon2"], hacc)
            _, out, _ = run_stdio(script)
            assert len(events(out, "enter")) <= 2, (seed, hacc)
            assert len(events(out, "exit")) <= 2, (seed, hacc)


def test_quota_radius_and_shape_failures():
    script = Script()
    small = script.circle("app", "small", STORE[0], STORE[1], 30, T0)
    script.circle("app", "second", STORE[0], STORE[1], 300, T0)
    replaced = script.circle("app", "second", STORE[0], STORE[1], 400, T0)
    over = script.circle("app", "third", STORE[0], STORE[1], 300, T0)
    script.circle("other", "huge", STORE[0], STORE[1], 5_000_000, T0)
    bow_tie = {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]}
    script.shape("other", "bowtie", bow_tie, T0)
    script.raw('region.cmd {"v":1,"type":"region.add","id":"neg","t":%f,"src":"x","owner":"app",'
               '"region":{"id":"neg","shape":{"type":"Circle","center":[0,0],"radius":-5}}}' % T0)
    status, out, _ = run_stdio(script, "--quota", "2")
    assert status == 0
    by_re = {b.get("re"): b for t, b in out if t.startswith("region.state.")}
    assert by_re[small]["type"] == "region.added" and by_re[small]["effectiveRadius"] == 100
    assert by_re[replaced]["type"] == "region.added" and "effectiveRadius" not in by_re[replaced]
    assert by_re[over]["type"] == "region.failed" and by_re[over]["code"] == "tooManyRegions"
    codes = sorted(b["code"] for t, b in out if b["type"] == "region.failed")
    assert codes == ["invalidShape", "radiusTooLarge", "tooManyRegions"]
    errors = [b for t, b in out if t == "error.geofence"]
    assert len(errors) == 1 and "radius" in errors[0]["message"]


def test_authorization_needed_and_drop_silences_events():
    script = Script()
    denied = script.circle("app", "store", STORE[0], STORE[1], 200, T0)
    script.auth("app", "always", T0 + 1)
    granted = script.circle("app", "store", STORE[0], STORE[1], 200, T0 + 2)
    start, inside = (31.2280, 121.4700), STORE
    for t, lat, lon in walk(start, inside, 1.4, T0 + 3):
        script.fix("walker", t, lat, lon)
    script.auth("app", "denied", T0 + 400)
    for t, lat, lon in walk(inside, start, 1.4, T0 + 401):
        script.fix("walker", t, lat, lon)
    script.auth("app", "always", T0 + 800)
    for t, lat, lon in walk(start, inside, 1.4, T0 + 801):
        script.fix("walker", t, lat, lon)
    _, out, _ = run_stdio(script, authorized=False)
    by_re = {b.get("re"): b for t, b in out if t.startswith("region.state.")}
    assert by_re[denied]["type"] == "region.failed" and by_re[denied]["code"] == "notAuthorized"
    assert by_re[granted]["type"] == "region.added"
    kinds = [(e["event"], e["location"]["t"] > T0 + 800) for e in events(out)]
    # Enter while authorized, nothing while denied (the exit is not reported), enter again after.
    assert kinds == [("enter", False), ("enter", True)]


def test_malformed_input_is_reported_and_valid_events_unchanged():
    clean, _ = store_walk_script()
    dirty = Script()
    garbage = [
        "location.fused.walker {not json",
        'location.fused.walker {"v":1,"type":"location","id":"bad-1","t":1,"src":"x","device":"walker","source":"gps","lat":95,"lon":0,"hacc":5}',
        'location.fused.walker {"v":1,"type":"location","id":"bad-2","t":1,"src":"x","device":"walker","source":"gps","lat":1,"lon":0,"hacc":-1}',
        'region.cmd {"v":1,"type":"region.add","id":"bad-3","t":1,"src":"x","owner":"shop","region":{"id":"r","shape":{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,1]]]}}}',
        "no-body-at-all",
        'region.cmd {"v":1,"type":"region.remove","id":"bad-4","t":1,"src":"x"}',
        'location.fused.walker {"type":"location","device":"walker"}',
    ]
    for index, line in enumerate(clean.lines):
        dirty.raw(line)
        if index % 50 == 7:
            dirty.raw(garbage[(index // 50) % len(garbage)])
    inserted = len(dirty.lines) - len(clean.lines)
    status_clean, out_clean, _ = run_stdio(clean)
    status_dirty, out_dirty, _ = run_stdio(dirty)
    assert status_clean == 0 and status_dirty == 0

    def essence(messages):
        return [{k: v for k, v in e.items() if k not in ("id", "src", "seq")} for e in events(messages)]

    assert essence(out_dirty) == essence(out_clean)
    assert len([1 for t, b in out_dirty if t == "error.geofence"]) == inserted
