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


def _stream():
    import json
    lines = []
    for i in range(20):
        body = {"v": 1, "type": "location", "id": f"f{i}", "t": 1000.0 + i, "src": "fusion/main", "device": "walker",
                "source": "fused", "lat": 31.2280 + i * 0.0002, "lon": 121.4700 + i * 0.0003, "hacc": 8}
        lines.append("location.fused.walker " + json.dumps(body))
    added = {"v": 1, "type": "region.added", "id": "r1", "t": 999.0, "src": "geofence/main", "owner": "alice",
             "region": {"id": "store", "shape": {"type": "Circle", "center": [121.4737, 31.2304], "radius": 200}}}
    event = {"v": 1, "type": "region.event", "id": "e1", "t": 1010.0, "src": "geofence/main", "owner": "alice",
             "regionId": "store", "device": "walker", "event": "enter", "state": "inside", "cause": "crossing",
             "location": {"lat": 31.2300, "lon": 121.4730, "hacc": 8, "t": 1010.0}}
    lines += ["region.state.alice " + json.dumps(added), "region.event.alice " + json.dumps(event), "not a message"]
    return "\n".join(lines) + "\n"


def test_plot_draws_tracks_regions_and_events(tmp_path):
    output = tmp_path / "map.svg"
    result = locus("plot", "--output", str(output), "--title", "walk", stdin=_stream())
    assert result.returncode == 0, result.stderr
    assert "skipped 1 line" in result.stderr
    svg = output.read_text()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert 'data-device="walker"' in svg
    assert svg.count('class="accuracy"') >= 10
    assert 'class="region"' in svg and "alice/store" in svg
    assert "enter store" in svg
    import xml.dom.minidom
    xml.dom.minidom.parseString(svg)  # well-formed


def test_plot_in_gcj02_moves_the_drawing_and_empty_input_is_an_error(tmp_path):
    wgs = locus("plot", "--datum", "wgs84", stdin=_stream()).stdout
    gcj = locus("plot", "--datum", "gcj02", stdin=_stream()).stdout
    grid_labels = lambda svg: [line for line in svg.splitlines() if "font-size=\"10\"" in line]
    assert grid_labels(wgs) != grid_labels(gcj), "the coordinate grid follows the datum"
    empty = locus("plot", stdin="")
    assert empty.returncode == 65 and "no positions" in empty.stdout


def test_doctor_reports_a_healthy_bus_and_bad_permissions(bus, tmp_path):
    secret = tmp_path / "secret.key"
    secret.write_text("x")
    secret.chmod(0o644)
    result = subprocess.run([str(bin_dir() / "locus"), "doctor", "--wait", "1.5", "--path", str(secret)],
                            env=bus.env, capture_output=True, text=True, timeout=30)
    lines = result.stdout.splitlines()
    assert any(line.startswith("ok: bus: ok") for line in lines), result.stdout
    assert any(line.startswith("fail: ") and "secret.key" in line and "chmod 600" in line for line in lines)
    assert result.returncode == 1
    secret.chmod(0o600)
    again = subprocess.run([str(bin_dir() / "locus"), "doctor", "--wait", "1.5", "--path", str(secret)],
                           env=bus.env, capture_output=True, text=True, timeout=30)
    assert again.returncode == 0, again.stdout


def test_doctor_says_when_there_is_no_bus(tmp_path):
    import os
    env = dict(os.environ, LOCUS_PUB=f"ipc://{tmp_path}/pub", LOCUS_SUB=f"ipc://{tmp_path}/sub")
    result = subprocess.run([str(bin_dir() / "locus"), "doctor", "--wait", "0.5"], env=env,
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert "no socket; is locus-bus running?" in result.stdout
