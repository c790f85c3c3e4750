#!/usr/bin/env python3
"""Writes geodesic_vectors.csv: reference geodesics on WGS-84 from GeographicLib.

Regenerate (only on purpose; the output is committed and diffed):
    python3 Tests/LocusGeoTests/Fixtures/make_vectors.py > Tests/LocusGeoTests/Fixtures/geodesic_vectors.csv

Each row is one geodesic: lat1,lon1,azi1,lat2,lon2,azi2,s12 (degrees, metres, written
with repr so they round-trip exactly: short pairs are ill-conditioned in azimuth), solved
with Geodesic.WGS84.Inverse from the two end points. GeodesicTests checks the inverse
problem (s12 and both azimuths) and the direct problem (from lat1,lon1,azi1,s12 to
lat2,lon2) against every row. The seed is fixed so the file is reproducible.
"""
import random
import sys

from geographiclib.geodesic import Geodesic

rng = random.Random(20260501)
G = Geodesic.WGS84


def lon():
    return rng.uniform(-180, 180)


def lat():
    return rng.uniform(-90, 90)


pairs = []  # (kind, lat1, lon1, lat2, lon2)
for _ in range(120):
    pairs.append(("random", lat(), lon(), lat(), lon()))
for _ in range(80):  # short pairs: metres to tens of kilometres, by direct from a random start
    a, o = rng.uniform(-85, 85), lon()
    r = G.Direct(a, o, rng.uniform(0, 360), 10 ** rng.uniform(-1, 4.7))
    pairs.append(("short", a, o, r["lat2"], r["lon2"]))
for _ in range(30):  # equatorial
    pairs.append(("equatorial", 0.0, lon(), 0.0, lon()))
for _ in range(30):  # meridional
    o = lon()
    pairs.append(("meridional", lat(), o, lat(), o if rng.random() < 0.5 else o + 180 - 360 * (o > 0)))
for _ in range(50):  # near-antipodal: the hard case for Vincenty
    a, o = lat(), lon()
    pairs.append(("antipodal", a, o, -a + rng.uniform(-0.5, 0.5), o + 180 - 360 * (o > 0) + rng.uniform(-0.5, 0.5)))
for _ in range(20):  # poles
    pole = rng.choice([90.0, -90.0])
    pairs.append(("pole", pole, 0.0, lat(), lon()) if rng.random() < 0.5 else ("pole", lat(), lon(), pole, 0.0))
for _ in range(20):  # across the antimeridian
    a = rng.uniform(-60, 60)
    pairs.append(("antimeridian", a, rng.uniform(179, 180), a + rng.uniform(-1, 1), rng.uniform(-180, -179)))
# Appended after the original kinds so their rows stay as they were.
for _ in range(40):  # within a few hundredths of a degree of the antipode: Newton from the astroid
    a, o = lat(), lon()
    pairs.append(("near-antipode", a, o, -a + rng.uniform(-0.02, 0.02), o + 180 - 360 * (o > 0) + rng.uniform(-0.02, 0.02)))
for _ in range(20):  # on the equator past (1 - f) 180° of longitude, where the geodesic leaves the equator
    o = lon()
    pairs.append(("near-antipode", 0.0, o, 0.0, o + 180 - 360 * (o > 0) + rng.uniform(-0.6, 0.6)))
for _ in range(10):  # exactly antipodal
    a, o = lat(), lon()
    pairs.append(("near-antipode", a, o, -a, o + 180 - 360 * (o > 0)))

out = sys.stdout
out.write("kind,lat1,lon1,azi1,lat2,lon2,azi2,s12\n")
for kind, lat1, lon1, lat2, lon2 in pairs:
    lon2 = (lon2 + 180) % 360 - 180
    r = G.Inverse(lat1, lon1, lat2, lon2)
    out.write("%s,%r,%r,%r,%r,%r,%r,%r\n"
              % (kind, lat1, lon1, r["azi1"], lat2, lon2, r["azi2"], r["s12"]))
