"""Corridors (a LineString with a width): the service's inside/outside against a geodesic
buffer computed here independently with geographiclib, and the progress, offRoute and
deviated reports of a device leaving the route part-way."""
import math
import random

from geographiclib.geodesic import Geodesic

from geofence_support import T0, Script, events, run_stdio

WGS84 = Geodesic.WGS84
# A route with legs of 2 to 60 km (long legs bend away from a straight lon/lat line).
ROUTE = [(48.10, 11.50), (48.40, 11.95), (48.42, 12.70), (48.05, 13.10), (48.06, 13.13)]  # (lat, lon)
WIDTH = 400.0


def leg_distance(lat, lon, a, b):
    """Smallest geodesic distance from the point to the geodesic a→b and the metres along
    it, by golden-section search on the position along the leg (refined from a coarse scan)."""
    line = WGS84.InverseLine(a[0], a[1], b[0], b[1])

    def at(s):
        p = line.Position(s)
        return WGS84.Inverse(lat, lon, p["lat2"], p["lon2"])["s12"]

    samples = 64
    best = min(range(samples + 1), key=lambda k: at(line.s13 * k / samples))
    lo = line.s13 * max(best - 1, 0) / samples
    hi = line.s13 * min(best + 1, samples) / samples
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(80):
        m1 = hi - ratio * (hi - lo)
        m2 = lo + ratio * (hi - lo)
        if at(m1) < at(m2):
            hi = m2
        else:
            lo = m1
    s = (lo + hi) / 2
    return at(s), s


def route_distance(lat, lon):
    """(distance to the route, metres along it to the nearest point)."""
    best = (math.inf, 0.0)
    travelled = 0.0
    for a, b in zip(ROUTE, ROUTE[1:]):
        d, s = leg_distance(lat, lon, a, b)
        if d < best[0]:
            best = (d, travelled + s)
        travelled += WGS84.Inverse(a[0], a[1], b[0], b[1])["s12"]
    return best


def corridor():
    return {"type": "LineString", "coordinates": [[lon, lat] for lat, lon in ROUTE], "width": WIDTH}


def test_corridor_verdicts_agree_with_an_independent_geodesic_buffer():
    rng = random.Random(77)
    script = Script()
    script.shape("fleet", "route", corridor(), T0)
    points = []
    while len(points) < 500:
        # Near the route: a random point of a random leg, moved sideways by up to 3 widths.
        a = rng.randrange(len(ROUTE) - 1)
        line = WGS84.InverseLine(*ROUTE[a], *ROUTE[a + 1])
        p = line.Position(rng.uniform(-0.05, 1.05) * line.s13)
        q = WGS84.Direct(p["lat2"], p["lon2"], rng.uniform(0, 360), rng.uniform(0, 3 * WIDTH))
        distance, _ = route_distance(q["lat2"], q["lon2"])
        if abs(distance - WIDTH) < 0.05:
            continue  # on the edge within the two computations' tolerance
        points.append((q["lat2"], q["lon2"], distance))
    for number, (lat, lon, _) in enumerate(points):
        script.fix(f"p{number}", T0 + 1, lat, lon, hacc=0.01)
    script.request_state("fleet", T0 + 2)
    status, out, err = run_stdio(script)
    assert status == 0, err
    answers = {e["device"]: e["state"] for e in events(out, "state")}
    assert len(answers) == len(points)
    inside = 0
    for number, (lat, lon, distance) in enumerate(points):
        expected = "inside" if distance < WIDTH else "outside"
        inside += expected == "inside"
        assert answers[f"p{number}"] == expected, (lat, lon, distance)
    assert 100 < inside < len(points) - 100


def test_leaving_mid_route_reports_exit_and_deviated_with_progress():
    script = Script()
    script.shape("fleet", "route", corridor(), T0)
    # Along the second leg to 40 % of it, then straight off to the side at 15 m/s.
    line = WGS84.InverseLine(*ROUTE[1], *ROUTE[2])
    t = T0 + 1
    for k in range(0, 41):
        p = line.Position(line.s13 * k / 100)
        script.fix("truck", t, p["lat2"], p["lon2"])
        t += 1
    turn = line.Position(line.s13 * 0.4)
    for k in range(1, 80):
        q = WGS84.Direct(turn["lat2"], turn["lon2"], turn["azi2"] + 90, 15 * k)
        script.fix("truck", t, q["lat2"], q["lon2"])
        t += 1
    status, out, err = run_stdio(script)
    assert status == 0, err
    found = events(out)
    assert [e["event"] for e in found] == ["exit", "deviated"], found
    exit_event, deviated = found
    first_leg = WGS84.Inverse(*ROUTE[0], *ROUTE[1])["s12"]
    assert abs(deviated["progress"] - (first_leg + 0.4 * line.s13)) < 1.0
    assert deviated["offRoute"] > WIDTH
    assert exit_event["progress"] == deviated["progress"] and exit_event["offRoute"] == deviated["offRoute"]
    lat, lon = exit_event["location"]["lat"], exit_event["location"]["lon"]
    assert abs(route_distance(lat, lon)[0] - exit_event["offRoute"]) < 0.01


def test_leaving_past_the_end_is_not_a_deviation():
    script = Script()
    script.shape("fleet", "route", corridor(), T0)
    line = WGS84.InverseLine(*ROUTE[-2], *ROUTE[-1])
    t = T0 + 1
    for k in range(0, 150):
        p = line.Position(line.s13 * 0.5 + 20 * k)  # on, 1.7 km past the route's end
        script.fix("van", t, p["lat2"], p["lon2"])
        t += 1
    status, out, err = run_stdio(script)
    assert status == 0, err
    assert [e["event"] for e in events(out)] == ["exit"]
