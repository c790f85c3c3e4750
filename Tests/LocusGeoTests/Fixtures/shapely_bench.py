#!/usr/bin/env python3
"""The geofence kernel in shapely, for comparison with GeofenceKernelBench.

Same scene shape: N circles of radius 100-1000 m centred uniformly in a 50 km square near
45 N, drawn as 64-gon buffers, and M uniform points; "which circles contain this point"
through shapely's STRtree (GEOS), vectorised. Prints points per second (query time only,
one thread) and the number of (point, circle) hits. The random draws differ from the
Swift bench, so hit counts agree only statistically.

    python3 Tests/LocusGeoTests/Fixtures/shapely_bench.py [circles] [points] [seed]
"""
import math
import sys
import time

import numpy as np
import shapely
from shapely import STRtree

circles = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
points = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1

rng = np.random.default_rng(seed)
lat0, lon0, half = 45.0, 7.0, 25_000.0
# Local metres to degrees at the scene centre (WGS-84 radii of curvature at 45 N).
a, e2 = 6378137.0, 0.00669437999014
s = math.sin(math.radians(lat0))
m_per_deg_lat = math.radians(1) * a * (1 - e2) / (1 - e2 * s * s) ** 1.5
m_per_deg_lon = math.radians(1) * a * math.cos(math.radians(lat0)) / math.sqrt(1 - e2 * s * s)


def to_lonlat(east, north):
    return lon0 + east / m_per_deg_lon, lat0 + north / m_per_deg_lat


cx, cy = to_lonlat(rng.uniform(-half, half, circles), rng.uniform(-half, half, circles))
radius = rng.uniform(100, 1000, circles)
angles = np.linspace(0, 2 * np.pi, 65)[:-1]
rings = np.stack([
    np.stack([cx[:, None] + radius[:, None] * np.cos(angles) / m_per_deg_lon,
              cy[:, None] + radius[:, None] * np.sin(angles) / m_per_deg_lat], axis=-1)
])[0]
polygons = shapely.polygons(rings)
tree = STRtree(polygons)
px, py = to_lonlat(rng.uniform(-half, half, points), rng.uniform(-half, half, points))
query_points = shapely.points(px, py)

start = time.process_time()
pairs = tree.query(query_points, predicate="within")
seconds = time.process_time() - start
print("shapely STRtree: %d circles (64-gons), %d points: %.0f points/s, %d hits"
      % (circles, points, points / seconds, pairs.shape[1]))
