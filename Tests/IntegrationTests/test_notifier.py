"""locus-notifier as a real process: JSONL, a real HTTP webhook server, kill -9 during
delivery, an exec script, a real mosquitto broker and a private D-Bus session bus."""
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time

import pytest

from conftest import bin_dir, envelope

T0 = 1_700_000_000.0


def region_event(event_id, t, region, kind, device="truck-7"):
    body = envelope("region.event", t=t, owner="app", regionId=region, device=device, event=kind,
                    state="inside" if kind == "enter" else "outside", cause="crossing",
                    location={"lat": 31.23, "lon": 121.47, "hacc": 9.0, "t": t})
    body["id"] = event_id
    return "region.event.app", body


FOUR = [region_event("e1", T0, "外滩", "enter"), region_event("e2", T0 + 60, "外滩", "exit"),
        region_event("e3", T0 + 120, "人民广场", "enter"), region_event("e4", T0 + 180, "人民广场", "exit")]


def write_input(path, messages):
    with open(path, "w") as handle:
        for topic, body in messages:
            handle.write(f"{topic} {body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)}\n")
    return path


def notifier(*args):
    return [str(bin_dir() / "locus-notifier"), "--stdio", *args]


def run_stdio(tmp_path, messages, *args, timeout=60):
    """Runs locus-notifier --stdio on the messages; returns (returncode, [(topic, body)], stderr)."""
    path = write_input(tmp_path / "input.txt", messages)
    with open(path) as stdin:
        done = subprocess.run(notifier(*args), stdin=stdin, capture_output=True, text=True, timeout=timeout)
    out = [(line.split(" ", 1)[0], json.loads(line.split(" ", 1)[1])) for line in done.stdout.splitlines() if line]
    return done.returncode, out, done.stderr


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


class Webhook:
    """A real HTTP server that fails the first `failures` requests with 503 and can hold
    requests (to kill the notifier while one is in flight)."""

    def __init__(self, failures=0, hold_from=None):
        self.failures = failures
        self.hold_from = hold_from
        self.release = threading.Event()
        self.holding = threading.Event()
        self.requests = []      # (idempotency key, body) of every request, answered or not
        self.accepted = []      # keys answered 2xx
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer.lock:
                    outer.requests.append((self.headers["Idempotency-Key"], body))
                    number = len(outer.requests)
                if outer.hold_from is not None and number >= outer.hold_from and not outer.release.is_set():
                    outer.holding.set()
                    outer.release.wait(30)
                    return  # the connection is cut: the notifier never sees an answer
                status = 503 if number <= outer.failures else 200
                if status == 200:
                    with outer.lock:
                        outer.accepted.append(self.headers["Idempotency-Key"])
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def test_four_events_with_duplicates_give_four_zh_hans_lines(tmp_path):
    messages = FOUR + [FOUR[0], FOUR[2], ("region.event.app", "{not json"), FOUR[3]]
    code, out, stderr = run_stdio(tmp_path, messages, "--sink", f"jsonl:{tmp_path/'n.jsonl'}",
                                  "--state", str(tmp_path / "state"), "--locale", "zh-Hans")
    assert code == 0, stderr
    lines = read_jsonl(tmp_path / "n.jsonl")
    assert [line["ref"] for line in lines] == ["e1", "e2", "e3", "e4"]
    assert [line["body"] for line in lines] == ["您已进入 外滩 附近", "您已离开 外滩 区域", "您已进入 人民广场 附近", "您已离开 人民广场 区域"]
    delivered = [body for topic, body in out if topic == "notify.jsonl" and body["status"] == "delivered"]
    assert [body["ref"] for body in delivered] == ["e1", "e2", "e3", "e4"]
    assert any(topic == "error.notifier" for topic, _ in out), "the malformed line is reported"
    # A second run with the same events (a replay after restart) adds nothing.
    code, _, stderr = run_stdio(tmp_path, FOUR, "--sink", f"jsonl:{tmp_path/'n.jsonl'}",
                                "--state", str(tmp_path / "state"), "--locale", "zh-Hans")
    assert code == 0, stderr
    assert len(read_jsonl(tmp_path / "n.jsonl")) == 4


def test_webhook_failing_first_three_requests_gets_everything_once(tmp_path):
    hook = Webhook(failures=3)
    try:
        code, out, stderr = run_stdio(tmp_path, FOUR, "--sink", f"webhook:{hook.url}", "--retry-initial", "0.05",
                                      "--state", str(tmp_path / "state"))
    finally:
        hook.stop()
    assert code == 0, stderr
    assert len(hook.requests) == 7
    assert [key for key, _ in hook.requests[:4]] == ["n-e1"] * 4, "in order: the first is retried until it passes"
    assert hook.accepted == ["n-e1", "n-e2", "n-e3", "n-e4"]
    assert all(body["id"] == key for key, body in hook.requests)
    statuses = [body["status"] for topic, body in out if topic == "notify.webhook"]
    assert statuses.count("retrying") == 3 and statuses.count("delivered") == 4


def test_kill_9_during_delivery_loses_nothing(tmp_path):
    hook = Webhook(hold_from=3)
    state = tmp_path / "state"
    witness = tmp_path / "witness.jsonl"  # a second sink: all four lines there prove all four were stored
    first = subprocess.Popen(notifier("--sink", f"webhook:{hook.url}", "--sink", f"jsonl:{witness}", "--state", str(state)),
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for topic, body in FOUR:
            first.stdin.write(f"{topic} {json.dumps(body)}\n")
        first.stdin.flush()
        assert hook.holding.wait(20), "the third delivery never started"
        deadline = time.monotonic() + 20
        while not (witness.exists() and len(witness.read_text().splitlines()) == 4):
            assert time.monotonic() < deadline, "the notifications were not all stored"
            time.sleep(0.01)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        hook.release.set()
        # Restart on the same state with no new input: it must finish the outbox.
        code, out, stderr = run_stdio(tmp_path, [], "--sink", f"webhook:{hook.url}", "--state", str(state))
        assert code == 0, stderr
    finally:
        if first.poll() is None:
            first.kill()
        hook.stop()
    received = [key for key, _ in hook.requests]
    assert received[:2] == ["n-e1", "n-e2"]
    assert set(received) == {"n-e1", "n-e2", "n-e3", "n-e4"}, received
    # The one in flight may come twice; its key lets the receiver drop the repeat.
    assert sorted(set(hook.accepted)) == ["n-e1", "n-e2", "n-e3", "n-e4"]
    assert len(received) <= 5


def test_exec_sink_runs_a_script_with_json_and_environment(tmp_path):
    script = tmp_path / "on-event.sh"
    log = tmp_path / "exec.log"
    script.write_text(f'#!/bin/sh\nprintf "%s|%s|%s|" "$LOCUS_NOTIFICATION_ID" "$LOCUS_REGION" "$LOCUS_KIND" >> {log}\ncat >> {log}\necho >> {log}\n')
    script.chmod(0o755)
    code, out, stderr = run_stdio(tmp_path, FOUR[:2], "--sink", f"exec:{script}", "--state", str(tmp_path / "s"))
    assert code == 0, stderr
    rows = log.read_text().splitlines()
    assert [row.split("|")[:3] for row in rows] == [["n-e1", "外滩", "enter"], ["n-e2", "外滩", "exit"]]
    assert json.loads(rows[0].split("|", 3)[3])["ref"] == "e1"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.skipif(shutil.which("mosquitto") is None, reason="mosquitto is installed by scripts/install-deps.sh")
def test_mqtt_sink_publishes_owntracks_transitions_to_a_real_broker(tmp_path):
    port = free_port()
    config = tmp_path / "mosquitto.conf"
    config.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n")
    broker = subprocess.Popen(["mosquitto", "-c", str(config), "-v"], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    subscriber = None
    try:
        lines = []

        def wait_for_log(text):
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                line = broker.stderr.readline() or broker.stdout.readline()
                lines.append(line)
                if text in line:
                    return
            raise AssertionError(f"mosquitto never logged {text!r}: {lines}")

        wait_for_log("running")
        subscriber = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", "owntracks/#", "-v", "-C", "2"],
                                      stdout=subprocess.PIPE, text=True)
        wait_for_log("SUBSCRIBE")
        code, out, stderr = run_stdio(tmp_path, FOUR[:2] + [("visit.truck-7", envelope("visit", t=T0, device="truck-7", lat=31.2, lon=121.4, hacc=20, arrival=T0))],
                                      "--sink", f"mqtt:127.0.0.1:{port}", "--mqtt-user", "alice", "--state", str(tmp_path / "s"))
        assert code == 0, stderr
        received = subscriber.communicate(timeout=10)[0].splitlines()
    finally:
        if subscriber and subscriber.poll() is None:
            subscriber.kill()
        broker.terminate()
        broker.wait(5)
    topics = [line.split(" ", 1)[0] for line in received]
    payloads = [json.loads(line.split(" ", 1)[1]) for line in received]
    assert topics == ["owntracks/alice/truck-7/event"] * 2
    assert [(p["_type"], p["event"], p["desc"], p["tst"]) for p in payloads] == [
        ("transition", "enter", "外滩", int(T0)), ("transition", "leave", "外滩", int(T0 + 60))]
    statuses = {(body["ref"], body["status"]) for topic, body in out if topic == "notify.mqtt"}
    assert ("e1", "delivered") in statuses and ("e2", "delivered") in statuses
    assert any(status == "suppressed" for _, status in statuses), "a visit has no OwnTracks transition"


@pytest.mark.skipif(shutil.which("dbus-run-session") is None or shutil.which("gdbus") is None, reason="needs dbus-run-session (Debian dbus-daemon) and gdbus (libglib2.0-bin)")
def test_desktop_sink_calls_notify_on_a_private_session_bus(tmp_path):
    monitor_log = tmp_path / "monitor.log"
    input_path = write_input(tmp_path / "input.txt", FOUR[:1])
    inner = f"""
    dbus-monitor --session "interface='org.freedesktop.Notifications'" > {monitor_log} 2>&1 &
    monitor=$!
    for i in $(seq 1 500); do grep -q NameAcquired {monitor_log} 2>/dev/null && break; sleep 0.01; done
    {bin_dir() / 'locus-notifier'} --stdio --sink desktop --drain-timeout 1 --retry-initial 30 --state {tmp_path / 's'} < {input_path}
    status=$?
    kill $monitor
    exit $status
    """
    done = subprocess.run(["dbus-run-session", "--", "sh", "-c", inner], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    log = monitor_log.read_text()
    assert "member=Notify" in log, log
    assert '"Entered 外滩"' in log and '"You are near 外滩"' in log, log


def test_bad_configuration_is_refused_with_a_reason(tmp_path):
    done = subprocess.run(notifier("--sink", "stdout", "--locale", "xx"), capture_output=True, text=True, input="", timeout=20)
    assert done.returncode == 78 and "unknown locale 'xx'" in done.stderr
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps({"en": {"enter": {"body": "near {regoin}"}}}))
    done = subprocess.run(notifier("--sink", "stdout", "--catalog", str(catalog)), capture_output=True, text=True, input="", timeout=20)
    assert done.returncode == 78 and "{regoin}" in done.stderr
    done = subprocess.run(notifier("--sink", "pigeon"), capture_output=True, text=True, input="", timeout=20)
    assert done.returncode == 64 and "unknown sink 'pigeon'" in done.stderr


def test_unreachable_sink_does_not_hold_up_the_others(tmp_path):
    port = free_port()  # nothing listens here
    code, out, stderr = run_stdio(tmp_path, FOUR, "--sink", f"webhook:http://127.0.0.1:{port}/x", "--sink", f"jsonl:{tmp_path/'n.jsonl'}",
                                  "--drain-timeout", "1", "--retry-initial", "0.2", "--state", str(tmp_path / "s"))
    assert code == 0, stderr
    assert [line["ref"] for line in read_jsonl(tmp_path / "n.jsonl")] == ["e1", "e2", "e3", "e4"]
    errors = [body for topic, body in out if topic == "error.notifier"]
    assert any(e["code"] == "sinkUnavailable" and "Connection refused" in e["message"] for e in errors), errors
    assert any(e["code"] == "drainTimeout" for e in errors)


def test_bus_destination_fixes_reach_the_notifier_and_a_fleets_do_not(bus, tmp_path):
    """On the bus the notifier subscribes to the fused fixes of devices with a destination
    only: progress and arrival come for the car, and a thousand fixes of other devices are
    never sent to it (its health counts what it received)."""
    sink = tmp_path / "n.jsonl"
    process = subprocess.Popen([str(bin_dir() / "locus-notifier"), "--sink", f"jsonl:{sink}", "--state", str(tmp_path / "s"),
                                "--health-interval", "0.5", "--no-replay"], env=bus.env, stderr=subprocess.PIPE, text=True)
    try:
        health = bus.subscriber("health.notifier")
        notes = bus.subscriber("notify.jsonl")
        bus.wait_for(health, lambda topic, body: True, timeout=15)
        publisher = bus.publisher()

        def publish(topic, body):
            publisher.send_multipart([topic.encode(), json.dumps(body).encode()])

        def kinds():
            return [line["kind"] for line in read_jsonl(sink)] if sink.exists() else []

        publish("notify.request", envelope("destination.set", device="car", lat=31.3, lon=121.47, radius=500, step=1000))
        # The subscription follows the request: until it is in place the car's fixes pass by, so
        # the first one (3.3 km out) is repeated until its progress is notified (the bus also
        # replays the newest to the new subscription). Then the car drives in.
        for attempt in range(30):
            publish("location.fused.car", envelope("location", t=T0 + attempt, device="car", source="fused", lat=31.27, lon=121.47, hacc=5))
            try:
                bus.wait_for(notes, lambda topic, body: "to the destination" in body["body"], timeout=1)
                break
            except AssertionError:
                continue
        for step, lat in enumerate([31.28, 31.29, 31.297]):
            publish("location.fused.car", envelope("location", t=T0 + 100 + step, device="car", source="fused", lat=lat, lon=121.47, hacc=5))
        bus.wait_for(notes, lambda topic, body: "arrived" in body["body"], timeout=15)
        assert kinds() == ["destinationProgress", "destinationProgress", "destinationProgress", "destinationArrival"], kinds()

        def received():
            return bus.wait_for(health, lambda topic, body: True, timeout=10)[1]["counters"].get("received", 0)

        before = received()
        for number in range(1000):
            publish(f"location.fused.van-{number}", envelope("location", device=f"van-{number}", source="fused",
                                                             lat=31.0, lon=121.47, hacc=5))
        # A request behind the vans: once it is notified, everything before it was handled.
        publish("notify.request", envelope("notify.request", title="after the vans", body="marker"))
        bus.wait_for(notes, lambda topic, body: body["title"] == "after the vans", timeout=15)
        after = bus.wait_for(health, lambda topic, body: body["counters"].get("received", 0) > before, timeout=10)[1]
        assert after["counters"]["received"] - before < 10, (before, after["counters"])
    finally:
        process.terminate()
        process.wait(timeout=10)
