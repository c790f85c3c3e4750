"""Phones as providers, with the real outside programs: mosquitto_pub publishing documented
OwnTracks location JSON to a real mosquitto (password, ACL, TLS with client certificates), and
curl speaking Traccar's OsmAnd protocol to locus-provider osmand. Fixes appear on
location.raw.<device>; malformed, out-of-range and unauthenticated reports are refused with a
clear error, counted in health and on error.provider."""
import json
import subprocess
import time

import pytest

from conftest import bin_dir
from door_support import Mosquitto, TestCertificates, free_port
from gpsd_support import Processes

ACL = """user locus
topic read owntracks/#

pattern readwrite owntracks/%u/#
"""


@pytest.fixture
def processes(tmp_path):
    started = Processes(tmp_path)
    yield started
    started.stop()


@pytest.fixture
def broker(tmp_path):
    pki = TestCertificates(tmp_path / "pki")
    instance = Mosquitto(tmp_path, pki, {"alice": "alice-secret", "locus": "locus-secret"}, ACL)
    (tmp_path / "locus.password").write_text("locus-secret\n")
    yield instance
    instance.stop()


def provider_args(*args):
    return [str(bin_dir() / "locus-provider"), *args, "--health-interval", "0.5"]


def wait_health(bus, sock, predicate, timeout=20):
    """The next health.provider message whose body satisfies predicate."""
    return bus.wait_for(sock, lambda topic, body: topic == "health.provider" and predicate(body), timeout)[1]


def owntracks_location(lat, lon, **extra):
    body = {"_type": "location", "tid": "px", "lat": lat, "lon": lon, "tst": int(time.time()), "acc": 12, "alt": 48,
            "vac": 3, "vel": 36, "cog": 270, "batt": 81, "bs": 1, "conn": "w", "t": "u"}
    body.update(extra)
    return json.dumps(body)


def test_owntracks_reports_through_tls_and_a_password_become_fixes_and_bad_ones_are_refused(bus, broker, processes, tmp_path):
    sock = bus.subscriber("location.raw.", "error.provider", "health.provider")
    pki = broker.pki
    processes.start(provider_args(
        "owntracks", "--broker", f"127.0.0.1:{broker.tls_port}", "--mqtt-ca-file", str(pki.ca),
        "--mqtt-cert", str(pki.client_cert), "--mqtt-key", str(pki.client_key),
        "--mqtt-username", "locus", "--mqtt-password-file", str(tmp_path / "locus.password"),
        "--allow-device", "pixel"), bus.env, "owntracks")
    wait_health(bus, sock, lambda body: body.get("detail", {}).get("note", "").startswith("subscribed to owntracks/+/+"))

    first = owntracks_location(52.5163, 13.3777)
    broker.publish("owntracks/alice/pixel", first)
    topic, fix = bus.wait_for(sock, lambda topic, body: topic.startswith("location.raw."))
    sent = json.loads(first)
    assert topic == "location.raw.pixel"
    assert (fix["device"], fix["source"], fix["lat"], fix["lon"], fix["hacc"], fix["t"]) == \
        ("pixel", "phone", 52.5163, 13.3777, 12, sent["tst"])
    assert fix["speed"] == pytest.approx(10.0) and fix["course"] == 270
    assert "alt" not in fix, "OwnTracks' altitude is above sea level: not Locus's ellipsoidal alt"

    bad = [
        ('{"_type":"location","lat":52.5,', "malformed", "not valid JSON"),
        (owntracks_location(95.0, 13.4), "outOfRange", "lat 95.0 is outside"),
        ('{"_type":"location","lat":NaN,"lon":13.4,"tst":%d,"acc":5}' % time.time(), "malformed", "not valid JSON"),
        (owntracks_location(52.5, 13.4, vel="fast"), "malformed", "'vel' must be a number"),
    ]
    for payload, code, text in bad:
        broker.publish("owntracks/alice/pixel", payload)
        _, error = bus.wait_for(sock, lambda topic, body: topic == "error.provider")
        assert error["code"] == code and text in error["message"], error
    broker.publish("owntracks/alice/tablet", owntracks_location(52.5, 13.4))
    _, error = bus.wait_for(sock, lambda topic, body: topic == "error.provider")
    assert error["code"] == "unknownDevice" and "tablet" in error["message"]

    # Unauthenticated publishers never reach the provider: the broker refuses them.
    for user, password, tls in [(None, None, True), ("alice", "wrong", True), (None, None, False), ("mallory", "x", False)]:
        refused = broker.publish("owntracks/alice/pixel", owntracks_location(1.0, 1.0), user=user, password=password, tls=tls, check=False)
        assert refused.returncode != 0 and "not authorised" in refused.stderr, refused.stderr
    # The ACL keeps alice to her own topics: a report she sends as bob is dropped by the broker.
    broker.publish("owntracks/bob/pixel", owntracks_location(2.0, 2.0))
    broker.publish("owntracks/alice/pixel", owntracks_location(52.52, 13.40))
    _, last = bus.wait_for(sock, lambda topic, body: topic == "location.raw.pixel")
    assert last["lat"] == 52.52, "nothing from a refused or unauthorised publisher came before it"

    health = wait_health(bus, sock, lambda body: body["counters"].get("source.fixes") == 2)
    counters = health["counters"]
    assert counters["source.received"] == 7
    assert counters["source.refused.malformed"] == 3 and counters["source.refused.outOfRange"] == 1
    assert counters["source.refused.unknownDevice"] == 1 and counters["source.battery.pixel"] == 81
    assert counters["rejected"] >= 5 and counters["devices"] == 1
    assert health["detail"]["plugin"] == "owntracks"


def test_owntracks_names_the_tls_failure_when_the_broker_is_not_trusted(bus, broker, processes, tmp_path):
    sock = bus.subscriber("error.provider")
    processes.start(provider_args(
        "owntracks", "--broker", f"127.0.0.1:{broker.tls_port}", "--mqtt-ca-file", str(broker.pki.other_ca),
        "--mqtt-cert", str(broker.pki.client_cert), "--mqtt-key", str(broker.pki.client_key),
        "--mqtt-username", "locus", "--mqtt-password-file", str(tmp_path / "locus.password")), bus.env, "owntracks")
    _, error = bus.wait_for(sock, lambda topic, body: True, timeout=20)
    assert error["code"] == "sourceUnavailable"
    assert "certificate verify failed" in error["message"] and "retrying" in error["message"], error


def curl(url, *args):
    """curl's status code and body."""
    done = subprocess.run(["curl", "-sS", "-o", "-", "-w", "\n%{http_code}", *args, url], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    body, _, status = done.stdout.rpartition("\n")
    return int(status), body


def test_osmand_reports_from_curl_become_fixes_and_bad_ones_get_traccars_answers(bus, processes, tmp_path):
    tokens = tmp_path / "phones.tokens"
    tokens.write_text("# device token\nvan-3 6d1f0c2a9b7e4d3c8a5f\n")
    port = free_port()
    sock = bus.subscriber("location.raw.", "error.provider", "health.provider")
    processes.start(provider_args("osmand", "--listen", f"127.0.0.1:{port}", "--tokens", str(tokens)), bus.env, "osmand")
    wait_health(bus, sock, lambda body: "listening" in body.get("detail", {}).get("note", ""))
    url = f"http://127.0.0.1:{port}/"
    token = "token=6d1f0c2a9b7e4d3c8a5f"
    now = int(time.time())

    assert curl(f"{url}?id=van-3&lat=48.137&lon=11.575&timestamp={now}&speed=10&bearing=90&altitude=520&accuracy=7&batt=64&{token}") == (200, "")
    topic, fix = bus.wait_for(sock, lambda topic, body: topic.startswith("location.raw."))
    assert topic == "location.raw.van-3"
    assert (fix["lat"], fix["lon"], fix["hacc"], fix["course"], fix["t"], fix["source"]) == (48.137, 11.575, 7, 90, now, "phone")
    assert fix["speed"] == pytest.approx(10 * 1852 / 3600), "Traccar's OsmAnd speed is in knots"

    assert curl(url, "--data", f"id=van-3&lat=48.138&lon=11.576&timestamp={now + 1}&accuracy=7&{token}") == (200, "")
    assert bus.wait_for(sock, lambda topic, body: topic == "location.raw.van-3")[1]["lat"] == 48.138
    report = {"device_id": "van-3", "token": "6d1f0c2a9b7e4d3c8a5f", "location": {
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(now + 2)),
        "coords": {"latitude": 48.139, "longitude": 11.577, "accuracy": 9, "speed": 4.5, "heading": 180, "altitude": 520},
        "battery": {"level": 0.5, "is_charging": False}}}
    assert curl(url, "-H", "Content-Type: application/json", "--data", json.dumps(report)) == (200, "")
    json_fix = bus.wait_for(sock, lambda topic, body: topic == "location.raw.van-3")[1]
    assert (json_fix["lat"], json_fix["speed"], json_fix["course"], json_fix["t"]) == (48.139, 4.5, 180, now + 2)

    refused = [
        (f"{url}?id=van-3&lat=48.1&lon=11.5&accuracy=7&token=wrong", 401, "unauthenticated", "wrong token"),
        (f"{url}?id=van-3&lat=48.1&lon=11.5&accuracy=7", 401, "unauthenticated", "sent no token"),
        (f"{url}?id=stranger&lat=48.1&lon=11.5&accuracy=7&{token}", 400, "unknownDevice", "not in the token file"),
        (f"{url}?id=van-3&lat=91&lon=11.5&accuracy=7&{token}", 400, "outOfRange", "lat 91.0 is outside"),
        (f"{url}?id=van-3&lat=NaN&lon=11.5&accuracy=7&{token}", 400, "outOfRange", "lat is not a finite number"),
        (f"{url}?id=van-3&lat=north&lon=11.5&accuracy=7&{token}", 400, "malformed", "lat 'north' is not a number"),
        (f"{url}?id=van-3&lat=48.1&lon=11.5&{token}", 400, "noAccuracy", "carries no accuracy"),
    ]
    for target, status, code, text in refused:
        answer = curl(target)
        assert answer[0] == status and text in answer[1], (target, answer)
        _, error = bus.wait_for(sock, lambda topic, body: topic == "error.provider")
        assert error["code"] == code and text in error["message"], error
    big = tmp_path / "big.form"
    big.write_text("id=van-3&pad=" + "x" * 20_000)
    assert curl(url, "--data-binary", f"@{big}")[0] == 413

    health = wait_health(bus, sock, lambda body: body["counters"].get("source.refused.noAccuracy") == 1)
    counters = health["counters"]
    assert counters["source.fixes"] == 3 and counters["source.received"] == 10
    assert counters["source.refused.unauthenticated"] == 2 and counters["source.refused.outOfRange"] == 2
    assert counters["source.refused.unknownDevice"] == 1 and counters["source.refused.malformed"] == 1
    assert counters["source.battery.van-3"] == 50


def test_osmand_off_loopback_needs_tokens():
    done = subprocess.run(provider_args("osmand", "--listen", f"0.0.0.0:{free_port()}"), capture_output=True, text=True, timeout=20)
    assert done.returncode == 64 and "give --tokens FILE" in done.stderr
