"""Polygons with holes and multipolygons: the service's inside/outside agrees with
shapely (GEOS) on thousands of random points away from the edges."""
import math
import random

from shapely.geometry import MultiPolygon, Point, Polygon

from geofence_support import T0, Script, events, run_stdio


def star(rng, lon, lat, r_min, r_max, vertices):
    """A simple (star-shaped) ring around (lon, lat), closed, radii in degrees."""
    ring = []
    for i in range(vertices):
        angle = 2 * math.pi * i / vertices
        r = rng.uniform(r_min, r_max)
        ring.append([lon + r * math.cos(angle), lat + r * math.sin(angle)])
    ring.append(ring[0])
    return ring


def test_polygons_and_multipolygons_agree_with_shapely():
    rng = random.Random(2024)
    base = (13.40, 52.52)
    outer = star(rng, *base, 0.02, 0.04, 40)
    hole_a = star(rng, base[0] - 0.006, base[1], 0.002, 0.005, 12)
    hole_b = star(rng, base[0] + 0.008, base[1] + 0.004, 0.002, 0.004, 9)
    polygon = {"type": "Polygon", "coordinates": [outer, hole_a, hole_b]}
    part_one = [star(rng, base[0] + 0.09, base[1], 0.01, 0.02, 25), star(rng, base[0] + 0.09, base[1], 0.002, 0.004, 8)]
    part_two = [star(rng, base[0] + 0.14, base[1] + 0.03, 0.005, 0.015, 17)]
    multi = {"type": "MultiPolygon", "coordinates": [part_one, part_two]}
    reference = {
        "park": Polygon(outer, [hole_a, hole_b]),
        "campus": MultiPolygon([Polygon(part_one[0], [part_one[1]]), Polygon(part_two[0])]),
    }

    script = Script()
    script.shape("city", "park", polygon, T0)
    script.shape("city", "campus", multi, T0)
    points = []
    while len(points) < 4000:
        lon = rng.uniform(base[0] - 0.05, base[0] + 0.17)
        lat = rng.uniform(base[1] - 0.05, base[1] + 0.06)
        point = Point(lon, lat)
        if min(g.boundary.distance(point) for g in reference.values()) < 1e-6:
            continue  # on an edge either answer is right
        points.append((lon, lat))
    for number, (lon, lat) in enumerate(points):
        script.fix(f"p{number}", T0 + 1, lat, lon, hacc=0.01)
    script.request_state("city", T0 + 2)
    status, out, _ = run_stdio(script)
    assert status == 0
    answers = {(e["regionId"], e["device"]): e["state"] for e in events(out, "state")}
    assert len(answers) == 2 * len(points)
    insides = 0
    for number, (lon, lat) in enumerate(points):
        for name, geometry in reference.items():
            expected = "inside" if geometry.contains(Point(lon, lat)) else "outside"
            insides += expected == "inside"
            assert answers[(name, f"p{number}")] == expected, (name, lon, lat)
    assert insides > 500  # the sample really exercises both sides
    assert events(out, "enter") == []  # first decisions are silent
