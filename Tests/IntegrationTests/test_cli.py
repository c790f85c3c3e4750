"""The locus command line's offline tools."""
import subprocess

from conftest import bin_dir


def locus(*args, stdin=None):
    return subprocess.run([str(bin_dir() / "locus"), *args], input=stdin, capture_output=True, text=True, timeout=30)


def test_coord_converts_one_point_and_a_stream():
    result = locus("coord", "--from", "wgs84", "--to", "gcj02", "31.1774276", "121.5272106")
    assert result.returncode == 0
    lat, lon = map(float, result.stdout.split())
    assert abs(lat - 31.17530398364597) < 1e-9 and abs(lon - 121.531541859215) < 1e-9
    stream = locus("coord", "--from", "gcj02", "--to", "wgs84", stdin="31.17530398364597,121.531541859215\n\n47.0 8.0\n")
    assert stream.returncode == 0
    lines = [list(map(float, line.split())) for line in stream.stdout.splitlines()]
    assert abs(lines[0][0] - 31.1774276) < 1e-7 and abs(lines[0][1] - 121.5272106) < 1e-7
    assert lines[1] == [47.0, 8.0], "outside China a point passes through unchanged"


def test_coord_reports_bad_lines_and_datums():
    result = locus("coord", stdin="95 10\nnot a point\n30 120\n")
    assert result.returncode == 65
    assert "line 1" in result.stderr and "line 2" in result.stderr
    assert len(result.stdout.splitlines()) == 1
    assert locus("coord", "--to", "mercator", "1", "2").returncode == 64
