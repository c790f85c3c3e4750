"""The documentation against the code: JSON Schemas against what real binaries emit,
docs/configuration.md against a fresh run of its generator, and every --option in the
docs against the --help of the program the text is about (and back).

Programs that are not built (e.g. locus-geofence before it lands) are skipped and named
in the output (pytest -rs shows the reasons)."""
import json
import re
import subprocess
import sys
import time

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from conftest import REPO, bin_dir

SCHEMA_DIR = REPO / "docs" / "schema"
SERVICES = ["locus-bus", "locus-provider", "locus-fusion", "locus-geofence", "locus-motion", "locus-notifier", "locus-gpsd", "locus-metrics"]
T0 = 1_700_000_000.0


def built(name):
    return (bin_dir() / name).exists()


def require(*names):
    missing = [name for name in names if not built(name)]
    if missing:
        pytest.skip(f"not built, skipped: {', '.join(missing)}")


def note_missing():
    missing = [name for name in SERVICES + ["locus"] if not built(name)]
    if missing:
        print(f"test_docs: not built, left out: {', '.join(missing)}", file=sys.stderr)


# MARK: - Schemas

def load_schemas():
    schemas = {}
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        schema = json.loads(path.read_text())
        assert schema.get("$id") == path.name, f"{path.name}: $id must be the file name"
        schemas[path.name] = schema
    return schemas


SCHEMAS = load_schemas()
REGISTRY = Registry().with_resources(
    (name, Resource.from_contents(schema)) for name, schema in SCHEMAS.items())


def validator(name):
    return Draft202012Validator(SCHEMAS[name], registry=REGISTRY)


def schema_name(body):
    """The schema a body should match: its type's own, or the region.list reply's."""
    type_ = body.get("type")
    if type_ == "region.list" and "regions" in body:
        return "region.list.reply.schema.json"
    return f"{type_}.schema.json"


def errors(body, name=None):
    """Validation errors of a body against its type's schema and the dispatching message schema."""
    name = name or schema_name(body)
    assert name in SCHEMAS, f"no schema for type {body.get('type')!r} (expected docs/schema/{name})"
    found = [e.message for e in validator(name).iter_errors(body)]
    found += [e.message for e in validator("message.schema.json").iter_errors(body)]
    return found


def assert_valid(lines):
    """Every text-form line validates; returns the (topic, body) pairs."""
    messages = []
    for line in lines:
        topic, _, text = line.partition(" ")
        body = json.loads(text)
        problems = errors(body)
        assert not problems, f"{topic} {text}\n  -> {problems}"
        messages.append((topic, body))
    return messages


def swift_message_types():
    """The wire names in LocusProtocol's MessageType, read from the source."""
    text = (REPO / "Shared" / "LocusProtocol" / "Model" / "Body.swift").read_text()
    block = text[text.index("public enum MessageType"):]
    return sorted(set(re.findall(r'public static let \w+ = "([^"]+)"', block)))


def test_every_schema_is_valid_draft_2020_12():
    assert len(SCHEMAS) >= 20
    for name, schema in SCHEMAS.items():
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema", name
        Draft202012Validator.check_schema(schema)


def test_every_protocol_type_has_a_schema_and_the_dispatcher_knows_it():
    types = swift_message_types()
    assert "location" in types and "region.event" in types
    dispatcher = json.dumps(SCHEMAS["message.schema.json"])
    for type_ in types + ["auth.pending", "notify.request", "destination.set", "destination.clear"]:
        assert f"{type_}.schema.json" in SCHEMAS, f"docs/schema/{type_}.schema.json is missing"
        assert f'"{type_}.schema.json"' in dispatcher, f"message.schema.json does not dispatch {type_}"
    assert "region.list.reply.schema.json" in dispatcher


def run(argv, stdin_text=None, timeout=60):
    done = subprocess.run([str(bin_dir() / argv[0]), *argv[1:]], input=stdin_text,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{argv}: exit {done.returncode}\n{done.stderr}"
    return done.stdout.splitlines()


def test_provider_and_fusion_output_validates(tmp_path):
    require("locus-provider", "locus-fusion")
    raw = run(["locus-provider", "sim", "--waypoints", "48.137,11.575;48.14,11.58;48.1405,11.5801", "--mps", "12",
               "--hacc", "5", "--wifi-hz", "0.5", "--cell-hz", "0.2", "--outlier-rate", "0.05", "--seed", "7",
               "--device-id", "car", "--rate", "max", "--stdio"])
    motion = run(["locus-provider", "motion", "--seed", "3", "--duration", "30", "--device-id", "car",
                  "--rate", "max", "--stdio"])
    fused = run(["locus-fusion", "--stdio", "--visit-stay", "5", "--state", str(tmp_path)], "\n".join(raw) + "\n")
    messages = assert_valid(raw + motion + fused)
    topics = {topic.rsplit(".", 1)[0] for topic, _ in messages}
    print(f"validated {len(messages)} messages on {sorted(topics)}")
    for expected in ["location.raw", "location.fused", "location.approx", "location.significant", "motion", "visit"]:
        assert expected in topics, f"the run produced no {expected} message to validate"
    sources = {body["source"] for topic, body in messages if topic.startswith("location.raw")}
    assert {"sim", "wifi", "cell"} <= sources or len(sources) >= 2, sources


def test_bus_stdio_error_lines_validate():
    require("locus-bus")
    lines = run(["locus-bus", "--stdio"], "no-space-here\nlocation.raw.x {\"v\":1}\nlocation.raw.x not json\n\n")
    messages = assert_valid(lines)
    assert [topic for topic, _ in messages] == ["error.bus"] * 3
    assert {body["code"] for _, body in messages} == {"invalidTextLine", "missingField", "invalidJSON"}


def test_motion_stdio_output_validates():
    require("locus-motion")
    def body(type_, i, t, **fields):
        return json.dumps({"v": 1, "type": type_, "id": f"d{i}", "t": t, "src": "test/docs", **fields})
    lines = []
    for i in range(10):  # a moving car, then silence the degrader bridges with dead reckoning
        lines.append("location.fused.car " + body("location", i, T0 + i, device="car", source="fused",
                     lat=48.137, lon=11.575 + i * 0.0002, hacc=5, speed=15, course=90, speedAcc=0.5, mode="3d"))
    lines.insert(1, "motion.car " + body("motion", 100, T0 + 1, device="car", activity="automotive", confidence="high"))
    lines.append("motion.car " + body("motion", 101, T0 + 40, device="car", activity="flying", confidence="high"))
    lines.append("motion.car " + body("motion", 102, T0 + 40, device="car", activity="automotive", confidence="high"))
    messages = assert_valid(run(["locus-motion", "--stdio"], "\n".join(lines) + "\n"))
    kinds = {(topic.split(".")[0], body.get("source")) for topic, body in messages}
    assert ("control", None) in kinds and ("error", None) in kinds, kinds
    assert ("location", "dr") in kinds, f"no dead-reckoned fix to validate: {kinds}"


def test_notifier_stdio_output_validates(tmp_path):
    require("locus-notifier")
    def body(type_, id_, **fields):
        return json.dumps({"v": 1, "type": type_, "id": id_, "t": T0, "src": "test/docs", **fields})
    lines = [
        "region.event.app " + body("region.event", "e1", owner="app", regionId="depot", device="car", event="enter",
                                   state="inside", cause="crossing", location={"lat": 48.1, "lon": 11.5, "hacc": 5, "t": T0}),
        "visit.car " + body("visit", "v1", device="car", lat=48.1, lon=11.5, hacc=20, arrival=T0 - 600),
        "notify.request " + body("notify.request", "r1", title="Hello", body="world"),
        "notify.request " + body("notify.request", "r2", title=5),
    ]
    out = run(["locus-notifier", "--stdio", "--sink", f"jsonl:{tmp_path / 'n.jsonl'}", "--drain-timeout", "5"],
              "\n".join(lines) + "\n")
    messages = assert_valid(out)
    assert sum(body["type"] == "notification" for _, body in messages) >= 3
    assert any(body["type"] == "error" for _, body in messages)


def test_health_and_errors_on_a_real_bus_validate(bus, tmp_path):
    require("locus-fusion")
    sub = bus.subscriber("health.", "error.")
    fusion = subprocess.Popen([str(bin_dir() / "locus-fusion"), "--health-interval", "0.5"], env=bus.env,
                              stderr=subprocess.DEVNULL)
    try:
        seen = {}
        def check(topic, body):
            problems = errors(body)
            assert not problems, f"{topic} {body} -> {problems}"
            seen[topic] = body
            return {"health.bus", "health.fusion"} <= set(seen)
        bus.wait_for(sub, check, timeout=15)
        pub = bus.publisher()
        # Fusion may still be joining: send the bad input again until both reports came back.
        deadline = time.monotonic() + 15
        while not {"error.bus", "error.fusion"} <= set(seen):
            assert time.monotonic() < deadline, f"no error reports, saw {sorted(seen)}"
            pub.send_multipart([b"location.raw.car", b'{"v":1,"type":"location"}'])
            pub.send_multipart([b"only-one-frame"])
            message = bus.receive(sub, 0.5)
            while message is not None:
                check(*message)
                message = bus.receive(sub, 0.05)
        assert seen["error.fusion"]["code"] == "missingField"
        assert seen["error.bus"]["code"]
    finally:
        fusion.terminate()
        fusion.wait(timeout=10)
        sub.close(0)


GOOD = [
    {"type": "location", "device": "car", "source": "gnss", "lat": 48.1, "lon": 11.5, "hacc": 4.2, "alt": -12.5,
     "vacc": 6, "speed": 0, "speedAcc": 0.1, "course": 359.9, "courseAcc": 2, "mode": "3d", "sats": 9, "hdop": 0.8,
     "tier": "high", "age": 0, "futureField": {"any": "thing"}},
    {"type": "region.add", "owner": "app", "region": {"id": "depot", "shape": {"type": "Circle", "center": [11.5, 48.1], "radius": 150},
     "notifyOnEntry": True, "notifyOnExit": False, "dwell": 60, "devices": ["car", "van"]}},
    {"type": "region.add", "owner": "app", "region": {"id": "yard", "shape": {"type": "Polygon", "coordinates":
     [[[11.5, 48.1], [11.6, 48.1], [11.6, 48.2], [11.5, 48.1]]]}}},
    {"type": "region.add", "owner": "app", "region": {"id": "two", "shape": {"type": "MultiPolygon", "coordinates":
     [[[[11.5, 48.1], [11.6, 48.1], [11.6, 48.2], [11.5, 48.1]]], [[[1, 1], [2, 1], [2, 2, 100], [1, 1]]]]}}},
    {"type": "region.remove", "owner": "app", "regionId": "depot"},
    {"type": "region.list", "owner": "app"},
    {"type": "region.list", "owner": "app", "re": "c1", "regions": [{"id": "depot", "shape": {"type": "Circle", "center": [11.5, 48.1], "radius": 150}}]},
    {"type": "region.requestState", "owner": "app", "regionId": "depot", "device": "car"},
    {"type": "region.added", "owner": "app", "re": "c1", "effectiveRadius": 200,
     "region": {"id": "depot", "shape": {"type": "Circle", "center": [11.5, 48.1], "radius": 50}}},
    {"type": "region.removed", "owner": "app", "regionId": "depot", "re": "c2"},
    {"type": "region.failed", "owner": "app", "regionId": "huge", "code": "radiusTooLarge", "message": "too large", "re": "c3"},
    {"type": "region.event", "owner": "app", "regionId": "depot", "device": "car", "event": "state", "state": "unknown",
     "cause": "requested", "location": {"lat": 48.1, "lon": 11.5, "hacc": 30, "t": T0}, "re": "c4", "crossingTime": T0 - 1},
    {"type": "auth.request", "client": "mapapp", "level": "temporaryFull", "purpose": "navigation"},
    {"type": "auth.set", "client": "mapapp", "status": "always", "accuracy": "reduced"},
    {"type": "auth.status", "client": "mapapp", "status": "whenInUse", "accuracy": "full",
     "temporaryFull": {"purpose": "navigation", "expires": T0 + 3600}},
    {"type": "auth.pending", "client": "mapapp", "requests": [{"level": "always", "description": "Warns you", "t": T0}]},
    {"type": "motion", "device": "car", "activity": "cycling", "confidence": "low"},
    {"type": "control", "device": "car", "desiredAccuracy": 10, "distanceFilter": 0, "paused": False, "powerMode": "low", "reason": "x"},
    {"type": "visit", "device": "car", "lat": 48.1, "lon": 11.5, "hacc": 50, "arrival": T0, "departure": T0 + 600},
    {"type": "notification", "ref": "e1", "title": "t", "body": "b", "sink": "jsonl-2", "status": "retrying"},
    {"type": "health", "service": "fusion", "state": "degraded", "uptime": 3.5, "counters": {"received": 3}, "detail": {"pid": "42"}},
    {"type": "error", "code": "outOfRange", "message": "location.lat: 95 is out of range [-90, 90]", "topic": "location.raw.x", "ref": "m1"},
    {"type": "destination.set", "device": "car", "lat": 31.2, "lon": 121.4, "radius": 500, "step": 1000},
    {"type": "destination.clear", "device": "car"},
    {"type": "some.future.type", "anything": [1, 2, 3]},
]


def with_envelope(fields, **envelope):
    body = {"v": 1, "id": "m-1", "t": T0, "src": "test/docs", "seq": 3}
    body.update(fields)
    body.update(envelope)
    return body


@pytest.mark.parametrize("fields", GOOD, ids=lambda f: f["type"])
def test_hand_written_good_messages_validate(fields):
    body = with_envelope(fields)
    name = schema_name(body) if f"{body['type']}.schema.json" in SCHEMAS else "message.schema.json"
    assert errors(body, name) == []


LOCATION = GOOD[0]
BAD = [
    ("envelope without v", {k: v for k, v in with_envelope(LOCATION).items() if k != "v"}),
    ("version 2", with_envelope(LOCATION, v=2)),
    ("empty id", with_envelope(LOCATION, id="")),
    ("negative t", with_envelope(LOCATION, t=-1)),
    ("seq not an integer", with_envelope(LOCATION, seq=1.5)),
    ("lat out of range", with_envelope(LOCATION, lat=95)),
    ("lon out of range", with_envelope(LOCATION, lon=-180.5)),
    ("hacc zero", with_envelope(LOCATION, hacc=0)),
    ("hacc as a string", with_envelope(LOCATION, hacc="5")),
    ("course 360", with_envelope(LOCATION, course=360)),
    ("negative speed", with_envelope(LOCATION, speed=-0.1)),
    ("unknown mode", with_envelope(LOCATION, mode="4d")),
    ("unknown tier", with_envelope(LOCATION, tier="great")),
    ("null alt", with_envelope(LOCATION, alt=None)),
    ("device with a space", with_envelope(LOCATION, device="my car")),
    ("device too long", with_envelope(LOCATION, device="d" * 201)),
    ("location without hacc", with_envelope({k: v for k, v in LOCATION.items() if k != "hacc"})),
    ("circle without radius", with_envelope({"type": "region.add", "owner": "app",
                                             "region": {"id": "r", "shape": {"type": "Circle", "center": [11.5, 48.1]}}})),
    ("circle radius negative", with_envelope({"type": "region.add", "owner": "app",
                                              "region": {"id": "r", "shape": {"type": "Circle", "center": [11.5, 48.1], "radius": -5}}})),
    ("center in lat, lon order out of range", with_envelope({"type": "region.add", "owner": "app",
                                              "region": {"id": "r", "shape": {"type": "Circle", "center": [48.1, 181], "radius": 5}}})),
    ("ring of three positions", with_envelope({"type": "region.add", "owner": "app", "region": {"id": "r", "shape":
                                               {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]}}})),
    ("unknown shape", with_envelope({"type": "region.add", "owner": "app",
                                     "region": {"id": "r", "shape": {"type": "Point", "coordinates": [0, 0]}}})),
    ("region.list reply with a bad region", with_envelope({"type": "region.list", "owner": "app", "regions": [{"id": "r"}]})),
    ("region.failed with an unknown code", with_envelope({"type": "region.failed", "owner": "a", "regionId": "r",
                                                          "code": "tooFar", "message": "m"})),
    ("region.event without location", with_envelope({"type": "region.event", "owner": "a", "regionId": "r", "device": "d",
                                                     "event": "enter", "state": "inside", "cause": "crossing"})),
    ("region.event with an unknown event", with_envelope({"type": "region.event", "owner": "a", "regionId": "r", "device": "d",
                                                          "event": "arrive", "state": "inside", "cause": "crossing",
                                                          "location": {"lat": 0, "lon": 0, "hacc": 1, "t": T0}})),
    ("auth.request for an unknown level", with_envelope({"type": "auth.request", "client": "c", "level": "forever"})),
    ("auth.status without accuracy", with_envelope({"type": "auth.status", "client": "c", "status": "always"})),
    ("auth.status with an unknown status", with_envelope({"type": "auth.status", "client": "c", "status": "sometimes", "accuracy": "full"})),
    ("motion with an unknown activity", with_envelope({"type": "motion", "device": "d", "activity": "flying", "confidence": "high"})),
    ("control with desiredAccuracy 0", with_envelope({"type": "control", "device": "d", "desiredAccuracy": 0})),
    ("control with paused as a string", with_envelope({"type": "control", "device": "d", "paused": "yes"})),
    ("visit without arrival", with_envelope({"type": "visit", "device": "d", "lat": 0, "lon": 0, "hacc": 5})),
    ("notification with an unknown status", with_envelope({"type": "notification", "ref": "e", "title": "t", "body": "b",
                                                           "sink": "s", "status": "lost"})),
    ("health with a fractional counter", with_envelope({"type": "health", "service": "s", "state": "ok", "counters": {"sent": 1.5}})),
    ("health with a negative counter", with_envelope({"type": "health", "service": "s", "state": "ok", "counters": {"sent": -1}})),
    ("error without message", with_envelope({"type": "error", "code": "x"})),
    ("destination.set without lon", with_envelope({"type": "destination.set", "device": "d", "lat": 1})),
]


@pytest.mark.parametrize("reason,body", BAD, ids=[reason for reason, _ in BAD])
def test_hand_written_bad_messages_are_rejected(reason, body):
    name = schema_name(body) if "type" in body else "envelope.schema.json"
    assert errors(body, name), f"schema {name} accepted a message with {reason}: {body}"


# MARK: - docs/configuration.md

def test_configuration_doc_is_the_generators_fresh_output():
    note_missing()
    fresh = subprocess.run(["bash", str(REPO / "scripts" / "gen-configuration-doc.sh"), str(bin_dir())],
                           capture_output=True, text=True, timeout=120)
    assert fresh.returncode == 0, fresh.stderr
    committed = (REPO / "docs" / "configuration.md").read_text()
    assert committed == fresh.stdout + "\n" or committed == fresh.stdout, (
        "docs/configuration.md is stale: run scripts/gen-configuration-doc.sh > docs/configuration.md")


# MARK: - Options in the docs against --help

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
PROGRAM = re.compile(r"(?<![\w/.@-])(?:\.build/(?:debug|release)/|/usr/local/bin/)?"
                     r"(locus-(?:bus|provider|fusion|geofence|motion|notifier|gpsd|metrics)|locus)(?![\w@/-])(?!\.\w)")
COMMON = re.compile(r"\b[Ee]very (?:program|service)\b")
# Options of other tools the docs show, allowed by name: the only exceptions.
FOREIGN = {"swift": {"--filter", "--show-bin-path", "--explicit-target-dependency-import-check"}, "gpsfake": {"--slow", "--udp"}, "pytest": set(), "python3": set(),
           "make": set(), "systemd-analyze": set(), "journalctl": set(), "jq": set(), "systemctl": {"--now"},
           "mosquitto_pub": {"--cafile", "--cert", "--key"}, "mosquitto_sub": {"--cafile", "--cert", "--key"}, "mosquitto_passwd": set(),
           "curl": {"--data", "--data-binary", "--cacert"}, "promtool": set(), "prometheus": {"--config", "--storage", "--web"},
           "nats-server": {"--signal"}, "mmcli": {"--location-get"}, "nmcli": set(), "iw": set()}
FOREIGN_TOOL = re.compile(r"(?<![\w/.-])(" + "|".join(map(re.escape, FOREIGN)) + r"|deploy/[\w./-]+\.sh|scripts/[\w./-]+\.(?:sh|py))(?![\w-])")
# The program a document is about when a passage names none.
DOC_DEFAULT = {"provider.md": "locus-provider", "fusion.md": "locus-fusion", "motion.md": "locus-motion",
               "notifier.md": "locus-notifier", "map.md": "locus map", "security.md": "locus-bus",
               "protocol.md": "locus-bus", "geofence.md": "locus-geofence", "gpsd.md": "locus-gpsd",
               "phones.md": "locus-provider", "metrics.md": "locus-metrics",
               "nats.md": "locus-geofence", "network.md": "locus-provider"}


def help_options(*argv):
    done = subprocess.run([str(bin_dir() / argv[0]), *argv[1:], "--help"], capture_output=True, text=True, timeout=20)
    assert done.returncode == 0, f"{argv} --help exited {done.returncode}"
    return set(OPTION.findall(done.stdout)), done.stdout


def all_help():
    """Program name ('locus-fusion', 'locus tail', 'locus bench nmea') -> options in its --help."""
    helps = {}
    for name in SERVICES:
        if built(name):
            helps[name] = help_options(name)[0]
    services = [options for name, options in helps.items()]
    helps["*every service*"] = set.intersection(*services) if services else set()
    if built("locus"):
        options, text = help_options("locus")
        helps["locus"] = options
        lines = text.split("\n")
        for line in lines[lines.index("Commands:") + 1:]:
            if not line.startswith("  "):
                break
            command = line.split()[0]
            options, sub_text = help_options("locus", command)
            helps[f"locus {command}"] = options
            if "Options:" not in sub_text:
                for sub in re.findall(r"^  (\w+)\s{2,}", sub_text, re.M):
                    if sub != "all":
                        helps[f"locus {command} {sub}"] = help_options("locus", command, sub)[0]
    return helps


def units(text):
    """Passages of a markdown file as (heading level, is_heading, [(segment, is_code)]):
    code-block lines (joined across trailing backslashes), table rows, paragraphs and list items."""
    out, paragraph, fence, pending = [], [], False, ""
    def flush():
        if paragraph:
            out.append((0, False, split_code(" ".join(paragraph))))
            paragraph.clear()
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            flush()
            fence = not fence
            continue
        if fence:
            pending += line
            if pending.endswith("\\"):
                pending = pending[:-1] + " "
                continue
            out.append((0, False, [(pending, True)]))
            pending = ""
            continue
        heading = re.match(r"^(#+) ", line)
        if heading:
            flush()
            out.append((len(heading.group(1)), True, split_code(line)))
        elif line.startswith("|") or not line.strip():
            flush()
            if line.strip():
                out.append((0, False, split_code(line)))
        elif re.match(r"^\s*(?:[-*]|\d+\.) ", line):
            flush()
            paragraph.append(line)
        else:
            paragraph.append(line)
    flush()
    return out


def split_code(text):
    parts = text.split("`")
    return [(part, index % 2 == 1) for index, part in enumerate(parts) if part]


def mentions(segments, commands):
    """Ordered (kind, name) events in a passage: ('program', name), ('foreign', tool), ('option', --x)."""
    events = []
    for segment, is_code in segments:
        found = []
        for match in PROGRAM.finditer(segment):
            name, end = match.group(1), match.end()
            if name == "locus":
                words = segment[end:].split()
                if words and f"locus {words[0]}" in commands:
                    name = f"locus {words[0]}"
                    if len(words) > 1 and f"{name} {words[1]}" in commands:
                        name = f"{name} {words[1]}"
            found.append((match.start(), "program", name))
        for match in COMMON.finditer(segment):
            found.append((match.start(), "program", "*every service*"))
        if is_code:
            for match in FOREIGN_TOOL.finditer(segment):
                found.append((match.start(), "foreign", match.group(1)))
        quoted = [(m.start(), m.end()) for m in re.finditer(r"--provider\s+'[^']*'", segment)]
        for match in OPTION.finditer(segment):
            inside = any(start < match.start() < end for start, end in quoted)
            found.append((match.start(), "option", (match.group(0), "locus-provider" if inside else None)))
        events += [(kind, value) for _, kind, value in sorted(found, key=lambda item: item[0])]
    return events


# The bad-input catalogue quotes wrong arguments (unknown flags, bad values) on purpose; each of its rows is
# backed by a test that runs the program with them.
INVALID_ON_PURPOSE = {"bad-input.md"}


def doc_files():
    return [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))


def documented_options():
    """(file, program, option) for every --option the docs mention, attributed to a program."""
    helps = all_help()
    commands = set(helps)
    found = []
    for path in doc_files():
        if path.name in INVALID_ON_PURPOSE:
            continue
        default = DOC_DEFAULT.get(path.name)
        section = {0: default}
        for level, is_heading, segments in units(path.read_text()):
            events = mentions(segments, commands)
            if is_heading:
                named = [value for kind, value in events if kind == "program"]
                for deeper in [key for key in section if key >= level]:
                    del section[deeper]
                section[level] = named[-1] if named else None
                continue
            inherited = next((section[key] for key in sorted(section, reverse=True) if section[key]), default)
            current = inherited
            for kind, value in events:
                if kind in ("program", "foreign"):
                    current = value if kind == "program" else ("foreign", value)
                else:
                    option, override = value
                    found.append((path.name, override or current, option))
    return helps, found


def test_every_option_in_the_docs_exists_in_that_programs_help():
    note_missing()
    helps, found = documented_options()
    problems, skipped = [], set()
    for file, program, option in found:
        if file == "configuration.md":
            continue
        if isinstance(program, tuple):
            tool = program[1]
            script = REPO / tool
            allowed = option in script.read_text() if script.exists() else option in FOREIGN.get(tool, set())
            if not allowed:
                problems.append(f"{file}: {option} of {tool} is neither in the script nor allowed for that tool")
        elif program is None:
            problems.append(f"{file}: {option} is not near a program's name, so it cannot be checked")
        elif program not in helps:
            skipped.add(program)
        elif option not in helps[program]:
            problems.append(f"{file}: {option} is not an option of {program} (see its --help)")
    if skipped:
        print(f"options of programs that are not built were not checked: {sorted(skipped)}", file=sys.stderr)
    assert len(found) > 100, "the docs parser found suspiciously few options"
    assert not problems, "\n".join(sorted(set(problems)))


def test_every_option_in_every_help_is_documented():
    helps, found = documented_options()
    documented = {(program, option) for _, program, option in found if isinstance(program, str)}
    undocumented = []
    for program, options in helps.items():
        if program.startswith("*"):
            continue
        for option in sorted(options):
            if (program, option) not in documented and ("*every service*", option) not in documented:
                undocumented.append(f"{program} {option}")
    assert not undocumented, "not in docs/*.md or README.md: " + ", ".join(undocumented)


def test_every_source_file_the_docs_cite_exists():
    """Docs point newcomers at files; a moved or renamed file must take its mentions along."""
    cited = re.compile(r"(?:Services|Shared|Tests|scripts|deploy|Fuzz)/[A-Za-z0-9_/+.-]*\.(?:swift|py|sh|json|conf|service|in)\b")
    missing = []
    for path in doc_files():
        for match in sorted(set(cited.findall(path.read_text()))):
            if not (REPO / match).exists():
                missing.append(f"{path.name}: {match}")
    assert not missing, "\n".join(missing)
