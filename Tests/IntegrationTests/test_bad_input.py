"""Bad input against real binaries: every row of docs/bad-input.md without a closer test.

Most cases use `--stdio` (the same runtime and codec as bus mode, deterministic and fast);
the peer cases use a real bus. Each test asserts what happens to the bad input (rejected
with which code, or refused with which exit status) and that good input after it still flows.
"""
import json
import os
import subprocess
import time

import pytest
import zmq

from conftest import SHARED_DATA, bin_dir, envelope

EXIT_USAGE = 64
EXIT_CONFIG = 78


def run(program, *args, stdin=b"", timeout=30):
    """Runs a binary to completion; returns (exit code, [(topic, body)], stderr text)."""
    result = subprocess.run([str(bin_dir() / program), *args], input=stdin, capture_output=True, timeout=timeout)
    messages = []
    for line in result.stdout.decode().splitlines():
        topic, _, body = line.partition(" ")
        messages.append((topic, json.loads(body)))
    return result.returncode, messages, result.stderr.decode(errors="replace")


def location(id_, device="d1", **fields):
    body = {"v": 1, "type": "location", "id": id_, "t": 1_700_000_000.0, "src": "test/bad",
            "device": device, "source": "gps", "lat": 52.5, "lon": 13.4, "hacc": 5.0}
    body.update(fields)
    return body


def line(topic, body):
    text = body if isinstance(body, str) else json.dumps(body)
    return f"{topic} {text}".encode()


def passed(messages, topic="location.raw.d1"):
    return [body for t, body in messages if t == topic]


def errors(messages, service="bus"):
    return [body for t, body in messages if t == f"error.{service}"]


# --- text form on stdin (every service's --stdio runtime) -------------------------------------

def test_stdin_binary_and_invalid_utf8_lines_are_rejected_and_input_resumes():
    lines = [b"\x00\xff\xfe\x80 binary", b"location.raw.d1 " + b"\xff" * 16, b"\x1b[31mlocation.raw.d1 {}",
             line("location.raw.d1", location("after-binary"))]
    code, messages, stderr = run("locus-bus", "--stdio", stdin=b"\n".join(lines) + b"\n")
    assert code == 0
    assert [e["code"] for e in errors(messages)] == ["invalidTextLine", "invalidJSON", "invalidTextLine"]
    assert len(passed(messages)) == 1 and "rejected=3" in stderr


def test_stdin_overlong_line_is_cut_reported_and_input_resumes():
    overlong = b"location.raw.d1 " + b'{"pad":"' + b"x" * (2 << 20) + b'"}'
    stdin = b"\n".join([overlong, line("location.raw.d1", location("after-overlong"))]) + b"\n"
    code, messages, _ = run("locus-bus", "--stdio", stdin=stdin)
    assert code == 0
    rejected = errors(messages)
    assert len(rejected) == 1 and rejected[0]["code"] == "invalidJSON"
    # The report quotes a prefix, never the 2 MiB line.
    assert len(json.dumps(rejected[0])) < 1000
    assert [body["lat"] for body in passed(messages)] == [52.5]


def test_stdin_truncated_last_line_is_reported_and_exit_is_zero():
    whole = line("location.raw.d1", location("whole"))
    stdin = whole + b"\n" + whole.replace(b'"whole"', b'"cut"')[:60]  # no newline: the writer died mid-line
    code, messages, _ = run("locus-bus", "--stdio", stdin=stdin)
    assert code == 0
    assert len(passed(messages)) == 1
    assert [e["code"] for e in errors(messages)] == ["invalidJSON"]


def test_stdin_crlf_line_endings_and_blank_lines_are_accepted():
    stdin = b"\r\n".join([line("location.raw.d1", location("crlf-1")), b"",
                          line("location.raw.d1", location("crlf-2", lat=52.6))]) + b"\r\n"
    code, messages, _ = run("locus-bus", "--stdio", stdin=stdin)
    assert code == 0
    assert [body["lat"] for body in passed(messages)] == [52.5, 52.6]
    assert errors(messages) == []


def test_stdin_closed_at_once_ends_cleanly_with_no_output():
    code, messages, stderr = run("locus-fusion", "--stdio", stdin=b"")
    assert code == 0 and messages == [] and "stopped" in stderr


def test_stdin_duplicate_id_is_passed_once():
    first = location("same-id")
    again = location("same-id", lat=10.0)  # a replay under the same id, even with other content
    stdin = b"\n".join(line("location.raw.d1", body) for body in (first, again, first)) + b"\n"
    code, messages, _ = run("locus-bus", "--stdio", stdin=stdin)
    assert code == 0
    assert [body["lat"] for body in passed(messages)] == [52.5]
    assert errors(messages) == []


def test_stdin_unknown_type_and_unknown_fields_pass_through():
    custom = {"v": 1, "type": "x.custom", "id": "c1", "t": 5.0, "src": "plugin/x", "payload": {"k": [1, 2]}}
    extra = location("extra", future={"field": True}, note="ignored")
    stdin = b"\n".join([line("x.custom", custom), line("location.raw.d1", extra)]) + b"\n"
    code, messages, _ = run("locus-bus", "--stdio", stdin=stdin)
    assert code == 0 and errors(messages) == []
    forwarded = dict(messages)
    assert forwarded["x.custom"]["payload"] == {"k": [1, 2]}
    assert forwarded["location.raw.d1"]["lat"] == 52.5


def test_stdin_json_nested_beyond_the_limit_is_rejected_without_a_crash():
    deep = "[" * 200_000 + "]" * 200_000
    body = '{"v":1,"type":"x.deep","id":"d","t":1,"src":"a/b","x":' + '{"a":' * 100_000 + "1" + "}" * 100_001
    stdin = b"\n".join([line("location.raw.d1", deep), line("x.deep", body),
                        line("location.raw.d1", location("after-deep"))]) + b"\n"
    code, messages, _ = run("locus-bus", "--stdio", stdin=stdin)
    assert code == 0
    rejected = errors(messages)
    assert len(rejected) == 2 and all("nested deeper" in e["message"] for e in rejected)
    assert len(passed(messages)) == 1


# --- location bodies: values a fix must not have ------------------------------------------------

@pytest.mark.parametrize("raw_value, code", [
    ("NaN", "notFinite"), ("Infinity", "notFinite"), ("-Infinity", "notFinite"), ("1e999", "notFinite"),
])
def test_location_nan_and_infinity_are_rejected_as_not_finite(raw_value, code):
    bad = json.dumps(location("nan")).replace('"lat": 52.5', f'"lat": {raw_value}')
    stdin = b"\n".join([line("location.raw.d1", bad), line("location.raw.d1", location("good"))]) + b"\n"
    status, messages, _ = run("locus-fusion", "--stdio", stdin=stdin)
    assert status == 0
    assert [e["code"] for e in errors(messages, "fusion")] == [code]
    assert len(passed(messages, "location.fused.d1")) == 1


@pytest.mark.parametrize("change, code, field", [
    ({"lat": "52.5"}, "wrongType", "lat"),
    ({"hacc": None}, "missingField", "hacc"),
    ({"lat": 91.0}, "outOfRange", "lat"),
    ({"lon": -180.5}, "outOfRange", "lon"),
    ({"hacc": 0}, "outOfRange", "hacc"),
    ({"hacc": -3}, "outOfRange", "hacc"),
    ({"course": 360}, "outOfRange", "course"),
    ({"sats": 2.5}, "wrongType", "sats"),
    ({"v": 2}, "unsupportedVersion", "v"),
    ({"device": ""}, None, "device"),
    ({"id": None}, "missingField", "id"),
])
def test_location_field_errors_name_the_field_and_spare_the_next_fix(change, code, field):
    bad = location("bad")
    for key, value in change.items():
        if value is None:
            del bad[key]
        else:
            bad[key] = value
    stdin = b"\n".join([line("location.raw.d1", bad), line("location.raw.d1", location("good"))]) + b"\n"
    status, messages, _ = run("locus-fusion", "--stdio", stdin=stdin)
    assert status == 0
    rejected = errors(messages, "fusion")
    assert len(rejected) == 1 and field in rejected[0]["message"]
    if code is not None:
        assert rejected[0]["code"] == code
    assert len(passed(messages, "location.fused.d1")) == 1


@pytest.mark.parametrize("body, code", [
    ("[1, 2]", "notAnObject"), ('"text"', "notAnObject"), ("{}", "missingField"), ("{\"v\":1}", "missingField"),
])
def test_bodies_that_are_not_messages_are_rejected(body, code):
    status, messages, _ = run("locus-bus", "--stdio", stdin=line("location.raw.d1", body) + b"\n")
    assert status == 0 and [e["code"] for e in errors(messages)] == [code]


# --- region.add: GeoJSON shapes ----------------------------------------------------------------

SQUARE = [[13.40, 52.50], [13.42, 52.50], [13.42, 52.52], [13.40, 52.52], [13.40, 52.50]]


def region_add(shape):
    return {"v": 1, "type": "region.add", "id": "cmd", "t": 1.0, "src": "test/bad", "owner": "ops",
            "region": {"id": "r1", "shape": shape}}


@pytest.mark.parametrize("shape, words", [
    ({"type": "Polygon", "coordinates": [SQUARE[:-1]]}, "closed"),
    ({"type": "Polygon", "coordinates": [SQUARE[:2] + SQUARE[:1]]}, "4"),
    # [lat, lon] instead of [lon, lat]: caught when the longitude is beyond ±90 (in range it is just elsewhere).
    ({"type": "Polygon", "coordinates": [[[31, 120], [31, 121], [30, 121], [31, 120]]]}, "[0][0][1]: 120 is out of range"),
    ({"type": "Polygon", "coordinates": [[[200, 52.5], [13.42, 52.5], [13.42, 52.52], [200, 52.5]]]}, "range"),
    ({"type": "Polygon", "coordinates": []}, ""),
    ({"type": "Polygon", "coordinates": [[["13.4", "52.5"]] * 4]}, "number"),
    ({"type": "Polygon", "coordinates": [[[13.4]] * 4]}, ""),
    ({"type": "MultiPolygon", "coordinates": []}, ""),
    # A corridor needs its width; a Point is no region.
    ({"type": "LineString", "coordinates": SQUARE}, "shape.width: required field is missing"),
    ({"type": "Point", "coordinates": [13.4, 52.5]}, "Point\" is not a supported shape"),
    ({"type": "Circle", "center": [13.4, 52.5], "radius": -5}, "radius"),
    ({"type": "Circle", "center": [13.4, 52.5], "radius": 0}, "radius"),
    ({"type": "Circle", "center": [13.4, 52.5]}, "radius"),
    ({"type": "Circle", "center": [13.4, 95.0], "radius": 100}, "center"),
    ({"coordinates": [SQUARE]}, "type"),
    ("a string", "shape"),
])
def test_region_add_with_a_bad_shape_is_rejected_and_names_the_problem(shape, words):
    good = region_add({"type": "Circle", "center": [13.4, 52.5], "radius": 150})
    good["id"] = "good-cmd"
    stdin = b"\n".join([line("region.cmd", region_add(shape)), line("region.cmd", good)]) + b"\n"
    status, messages, _ = run("locus-bus", "--stdio", stdin=stdin)
    assert status == 0
    rejected = errors(messages)
    assert len(rejected) == 1 and "shape" in rejected[0]["message"]
    assert words.lower() in rejected[0]["message"].lower()
    assert len(passed(messages, "region.cmd")) == 1


def test_region_add_with_nan_radius_is_not_json():
    text = json.dumps(region_add({"type": "Circle", "center": [13.4, 52.5], "radius": 1})).replace('"radius": 1', '"radius": NaN')
    status, messages, _ = run("locus-bus", "--stdio", stdin=line("region.cmd", text) + b"\n")
    assert status == 0 and [e["code"] for e in errors(messages)] == ["notFinite"]


def test_region_add_duplicate_members_last_one_wins():
    text = json.dumps(region_add({"type": "Circle", "center": [13.4, 52.5], "radius": 100}))
    text = text.replace('"owner": "ops"', '"owner": "mallory", "owner": "ops"')
    status, messages, _ = run("locus-bus", "--stdio", stdin=line("region.cmd", text) + b"\n")
    assert status == 0 and errors(messages) == []
    assert passed(messages, "region.cmd")[0]["owner"] == "ops"


# --- config files and command-line arguments ---------------------------------------------------

@pytest.mark.parametrize("content, words", [
    (b"", "not valid JSON"),
    (b"{ not json", "not valid JSON"),
    (bytes(range(256)) * 8, "not valid JSON"),
    (b"[1, 2]", "must hold a JSON object"),
    (b'{"health-interval": {"seconds": 1}}', "unsupported type"),
    (b'{"health-interval": null}', "unsupported type"),
    (b'{"health-interval": NaN}', "not valid JSON"),
    (b'{"helth-interval": 1}', "is not an option"),
    (b'{"config": "other.json"}', "is not an option"),
    (b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}", "not valid JSON"),
], ids=["empty", "not-json", "binary", "array", "object-value", "null-value", "nan", "misspelt-key",
        "config-key", "nested-100k"])
def test_bad_config_file_exits_78_with_a_reason(tmp_path, content, words):
    config = tmp_path / "fusion.json"
    config.write_bytes(content)
    status, messages, stderr = run("locus-fusion", "--config", str(config), "--stdio")
    assert status == EXIT_CONFIG and words in stderr and messages == []


def test_missing_config_file_exits_78(tmp_path):
    status, _, stderr = run("locus-fusion", "--config", str(tmp_path / "absent.json"), "--stdio")
    assert status == EXIT_CONFIG and "cannot read config file" in stderr


def test_config_value_of_the_wrong_kind_is_a_usage_error(tmp_path):
    config = tmp_path / "fusion.json"
    config.write_text('{"health-interval": "often"}')
    status, _, stderr = run("locus-fusion", "--config", str(config), "--stdio")
    assert status == EXIT_USAGE and "often" in stderr


@pytest.mark.parametrize("args, words", [
    (["--health-interval", "abc"], "abc"),
    (["--health-interval", "nan"], "nan"),
    (["--health-interval"], "needs a value"),
    (["--stdio=yes"], "takes no value"),
    (["--log-level", "loud"], "loud"),
    (["--no-such-flag"], "--no-such-flag"),
    (["-x"], "-x"),
])
def test_bad_arguments_exit_64_with_a_reason(args, words):
    status, messages, stderr = run("locus-fusion", "--stdio", *args)
    assert status == EXIT_USAGE and words in stderr and messages == []


# --- NMEA and GPX files ------------------------------------------------------------------------

def test_nmea_binary_file_gives_no_location_and_exits_zero(tmp_path):
    noise = tmp_path / "noise.log"
    noise.write_bytes(bytes((i * 7919 + 13) % 256 for i in range(200_000)))
    status, messages, _ = run("locus-provider", "nmea", "--file", str(noise), "--rate", "max", "--stdio", timeout=60)
    assert status == 0
    assert [t for t, _ in messages if t.startswith("location.")] == []


@pytest.mark.parametrize("content, words", [
    (b"", "empty"),
    (b"\x00\x01\x02gpx", "NUL"),
    (b'<?xml version="1.0"?><gpx version="1.1"><trk><trkseg><\xff\xfe lat="1" lon="2"/></trkseg></trk></gpx>', "UTF-8"),
    (b'<gpx version="1.1"><wpt lat="95" lon="2"/></gpx>', "out of range"),
    (b'<gpx version="1.1"><wpt lat="north" lon="2"/></gpx>', "lat"),
    (b'<kml><Placemark/></kml>', "gpx"),
    # Found by Fuzz/GPXFuzz: a processing instruction without data made Foundation's XMLParser crash (SIGSEGV).
    (b'<?xml-?>\n<gpx xmljs:0" versiopx>\n', "processing instruction"),
    (b'<gpx version="1.1"><?pi?><wpt lat="1" lon="2"/></gpx>', "processing instruction"),
    (b'<gpx version="1.1"><trk><trkseg><trkpt lat="1" lon="2"><time>yesterday</time></trkpt></trkseg></trk></gpx>', "time"),
])
def test_gpx_bad_files_are_refused_with_a_reason_and_exit_zero(tmp_path, content, words):
    bad = tmp_path / "bad.gpx"
    bad.write_bytes(content)
    status, messages, _ = run("locus-provider", "gpx", "--file", str(bad), "--rate", "max", "--stdio")
    assert status == 0
    assert [t for t, _ in messages if t.startswith("location.")] == []
    reported = [body for t, body in messages if t == "error.provider"]
    assert reported and reported[0]["code"] == "badInput" and words in reported[0]["message"]


def test_gpx_real_file_with_its_tail_cut_is_refused(tmp_path):
    whole = (SHARED_DATA / "gpx" / "cerknicko-jezero.gpx").read_bytes()
    bad = tmp_path / "cut.gpx"
    bad.write_bytes(whole[: len(whole) // 2])
    status, messages, _ = run("locus-provider", "gpx", "--file", str(bad), "--rate", "max", "--stdio")
    assert status == 0 and [t for t, _ in messages if t.startswith("location.")] == []
    assert any(t == "error.provider" for t, _ in messages)


def two_point_gpx(tmp_path, second_time):
    path = tmp_path / "gap.gpx"
    path.write_text('<?xml version="1.0"?><gpx version="1.1"><trk><trkseg>'
                    '<trkpt lat="52.5" lon="13.4"><time>2000-01-01T00:00:00Z</time></trkpt>'
                    f'<trkpt lat="52.6" lon="13.5"><time>{second_time}</time></trkpt>'
                    '</trkseg></trk></gpx>')
    return path


@pytest.mark.parametrize("second_time, hz, expected", [
    ("2020-01-01T00:00:00Z", "1", 2),       # a 20-year gap would be 630 M fixes: replayed as its end points
    ("2000-01-01T00:00:01Z", "1e9", 2),     # an absurd rate over one second: likewise
    ("2000-01-01T01:00:00Z", "1", 3601),    # an hour at 1 Hz is still filled
])
def test_gpx_interpolation_across_a_huge_gap_is_bounded(tmp_path, second_time, hz, expected):
    path = two_point_gpx(tmp_path, second_time)
    status, messages, _ = run("locus-provider", "gpx", "--file", str(path), "--hz", hz, "--rate", "max", "--stdio",
                              timeout=60)
    fixes = [body for t, body in messages if t == "location.raw.local"]
    assert status == 0 and len(fixes) == expected
    assert (fixes[0]["lat"], fixes[-1]["lat"]) == (52.5, 52.6)


# --- peers on a real bus -------------------------------------------------------------------------

def test_malformed_frames_and_a_vanishing_publisher_do_not_disturb_the_bus(bus):
    watcher = bus.subscriber("location.raw.", "error.bus")
    rogue = bus.context.socket(zmq.PUB)
    rogue.setsockopt(zmq.LINGER, 0)
    rogue.connect(bus.pub)
    good_publisher = bus.publisher()
    good = envelope("location", device="d1", source="gps", lat=52.5, lon=13.4, hacc=5.0)
    # Keep sending until the bus reports the rogue's frames: connections complete asynchronously.
    deadline = time.monotonic() + 10
    while True:
        rogue.send_multipart([b"location.raw.d1"])                       # one frame only
        rogue.send_multipart([b"location.raw.d1", b"\xff\x00 not json"])  # binary body
        rogue.send_multipart([b"location.raw.d1", b"{}", b"third"])       # three frames
        good_publisher.send_multipart([b"location.raw.d1", json.dumps(good).encode()])
        message = bus.receive(watcher, 0.2)
        if message and message[0] == "error.bus":
            break
        assert time.monotonic() < deadline, "the bus reported no error for the rogue frames"
    rogue.close(linger=0)  # the peer disappears without a goodbye
    later = envelope("location", device="d1", source="gps", lat=1.0, lon=2.0, hacc=5.0)
    assert _send_until_seen(bus, good_publisher, watcher, later)
    assert bus.process.poll() is None


def _send_until_seen(bus, publisher, watcher, body):
    """Publishes `body` until the watcher sees it; True when it did within 10 s."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        publisher.send_multipart([f"location.raw.{body['device']}".encode(), json.dumps(body).encode()])
        message = bus.receive(watcher, 0.2)
        while message is not None:
            if message[1].get("id") == body["id"]:
                return True
            message = bus.receive(watcher, 0.05)
    return False
