"""locus-bus and the locus CLI against real pyzmq clients."""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import zmq

from conftest import REPO, Bus, bin_dir, envelope


def location(device="truck-7", lat=31.2304, **extra):
    return envelope("location", device=device, source="gps", lat=lat, lon=121.4737, hacc=5.0, **extra)


def send(sock, topic, body):
    sock.send_multipart([topic.encode(), json.dumps(body).encode()])


def test_python_publisher_reaches_python_subscriber(bus):
    sub = bus.subscriber("location.")
    pub = bus.publisher()
    body = location()
    # The subscription may not be live yet: repeat until it is, then check the content.
    got = None
    for _ in range(200):
        send(pub, "location.raw.truck-7", body)
        got = bus.receive(sub, timeout=0.05)
        if got:
            break
    assert got is not None
    topic, received = got
    assert topic == "location.raw.truck-7"
    assert received["id"] == body["id"] and received["lat"] == 31.2304 and received["hacc"] == 5.0


def test_late_python_subscriber_gets_last_value_at_once(bus):
    pub = bus.publisher()
    early = bus.subscriber("location.")
    first = location(lat=31.1)
    for _ in range(200):
        send(pub, "location.fused.truck-7", first)
        if bus.receive(early, timeout=0.05):
            break
    last = location(lat=31.3)
    send(pub, "location.fused.truck-7", last)
    bus.wait_for(early, lambda topic, body: body["id"] == last["id"])
    late = bus.subscriber("location.fused.")
    topic, body = bus.wait_for(late, lambda topic, body: True, timeout=5)
    assert body["id"] == last["id"], "the first message a late joiner sees is the newest value"


def test_locus_pub_reaches_pyzmq_and_tail_prints_what_python_sends(bus):
    sub = bus.subscriber("location.raw.cli")
    tail = subprocess.Popen([str(bin_dir() / "locus"), "tail", "location.raw.py", "--count", "1", "--timeout", "20"],
                            env=bus.env, stdout=subprocess.PIPE, text=True)
    body = json.dumps({"type": "location", "device": "cli", "source": "manual", "lat": 10.5, "lon": 20.25, "hacc": 30})
    result = subprocess.run([str(bin_dir() / "locus"), "pub", "location.raw.cli", body], env=bus.env, timeout=20)
    assert result.returncode == 0
    topic, received = bus.wait_for(sub, lambda topic, body: True)
    assert topic == "location.raw.cli" and received["lat"] == 10.5 and received["v"] == 1 and received["id"]

    pub = bus.publisher()
    message = location(device="py")
    deadline = time.monotonic() + 20
    while tail.poll() is None and time.monotonic() < deadline:
        send(pub, "location.raw.py", message)
        try:
            tail.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            pass
    output = tail.stdout.read()
    assert tail.returncode == 0
    topic, text = output.strip().split(" ", 1)
    assert topic == "location.raw.py" and json.loads(text)["id"] == message["id"]


def test_locus_pub_rejects_invalid_bodies_with_a_clear_error(bus):
    bad = json.dumps({"type": "location", "device": "x", "source": "gps", "lat": 95, "lon": 0, "hacc": 5})
    result = subprocess.run([str(bin_dir() / "locus"), "pub", "location.raw.x", bad], env=bus.env,
                            capture_output=True, text=True, timeout=20)
    assert result.returncode == 65
    assert "lat" in result.stderr and "95" in result.stderr


def test_sigterm_stops_the_bus_cleanly_within_two_seconds(runtime_dir):
    instance = Bus(runtime_dir)
    start = time.monotonic()
    instance.process.send_signal(signal.SIGTERM)
    code = instance.process.wait(timeout=5)
    elapsed = time.monotonic() - start
    instance.stop()
    assert code == 0
    assert elapsed < 2.0, f"took {elapsed:.2f} s"


def test_help_version_and_bad_arguments():
    locus_bus = str(bin_dir() / "locus-bus")
    help_text = subprocess.run([locus_bus, "--help"], capture_output=True, text=True, timeout=10)
    assert help_text.returncode == 0
    for option in ("--pub", "--sub", "--config", "--stdio", "--hwm"):
        assert option in help_text.stdout
    version = subprocess.run([locus_bus, "--version"], capture_output=True, text=True, timeout=10)
    assert version.returncode == 0 and re.match(r"locus-bus \d+\.\d+\.\d+", version.stdout)
    bad = subprocess.run([locus_bus, "--frobnicate"], capture_output=True, text=True, timeout=10)
    assert bad.returncode == 64 and "--frobnicate" in bad.stderr
    locus = subprocess.run([str(bin_dir() / "locus"), "nonsense"], capture_output=True, text=True, timeout=10)
    assert locus.returncode == 64


def test_malformed_config_file_is_reported(tmp_path):
    config = tmp_path / "bus.json"
    config.write_text("{ not json")
    result = subprocess.run([str(bin_dir() / "locus-bus"), "--config", str(config)],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 78 and "not valid JSON" in result.stderr
    config.write_text('{"hwm": 10, "hmw": 20}')
    result = subprocess.run([str(bin_dir() / "locus-bus"), "--config", str(config)],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 78 and "config key 'hmw' is not an option" in result.stderr


def test_config_file_sets_endpoints_and_flags_override_it(runtime_dir, tmp_path):
    config = tmp_path / "bus.json"
    config.write_text(json.dumps({"pub": f"ipc://{runtime_dir}/from-config-pub", "sub": f"ipc://{runtime_dir}/wrong"}))
    process = subprocess.Popen([str(bin_dir() / "locus-bus"), "--config", str(config), "--sub", f"ipc://{runtime_dir}/flag-sub"],
                               stderr=subprocess.PIPE, text=True, env={k: v for k, v in os.environ.items() if not k.startswith("LOCUS_")})
    try:
        line = process.stderr.readline()
        assert f"publishers ipc://{runtime_dir}/from-config-pub" in line
        assert f"subscribers ipc://{runtime_dir}/flag-sub" in line
    finally:
        process.terminate()
        assert process.wait(timeout=15) == 0  # the timed SIGTERM check is its own test


def test_stdio_mode_passes_valid_lines_and_reports_malformed_ones():
    good = location(device="pipe", t=1000.0)
    lines = [f"location.raw.pipe {json.dumps(good)}", "garbage without a body", "location.raw.x {\"v\":1}", ""]
    result = subprocess.run([str(bin_dir() / "locus-bus"), "--stdio"], input="\n".join(lines) + "\n",
                            capture_output=True, text=True, timeout=20)
    assert result.returncode == 0
    out = [line.split(" ", 1) for line in result.stdout.splitlines()]
    topics = [topic for topic, _ in out]
    assert topics.count("location.raw.pipe") == 1
    assert topics.count("error.bus") == 2
    passed = json.loads(dict(out)["location.raw.pipe"])
    assert passed["lat"] == good["lat"] and passed["t"] == 1000.0


def test_up_restarts_a_crashed_bus(runtime_dir):
    env = dict(os.environ, LOCUS_PUB=f"ipc://{runtime_dir}/pub", LOCUS_SUB=f"ipc://{runtime_dir}/sub")
    up = subprocess.Popen([str(bin_dir() / "locus"), "up", "--only", "bus"], env=env, stderr=subprocess.PIPE, text=True)
    running = threading.Event()

    def drain():
        for line in up.stderr:
            if "running" in line:
                running.set()

    threading.Thread(target=drain, daemon=True).start()
    context = zmq.Context()
    try:
        assert running.wait(20), "locus up never reported that it is running"
        sub = context.socket(zmq.SUB)
        sub.connect(env["LOCUS_SUB"])
        sub.setsockopt_string(zmq.SUBSCRIBE, "health.bus")
        first_pid = None
        deadline = time.monotonic() + 20
        while first_pid is None and time.monotonic() < deadline:
            if sub.poll(500):
                first_pid = json.loads(sub.recv_multipart()[1])["detail"]["pid"]
        assert first_pid, "bus never reported health"
        os.kill(int(first_pid), signal.SIGKILL)
        second_pid = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if sub.poll(500):
                pid = json.loads(sub.recv_multipart()[1])["detail"]["pid"]
                if pid != first_pid:
                    second_pid = pid
                    break
        assert second_pid, "the crashed bus was not restarted"
    finally:
        up.send_signal(signal.SIGTERM)
        assert up.wait(timeout=10) == 0
        context.destroy(linger=0)


def test_readme_python_example_runs_for_real(bus):
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Subscribe from Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    example = subprocess.Popen([sys.executable, "-c", code], env=bus.env, stdout=subprocess.PIPE, text=True)
    try:
        pub = bus.publisher()
        body = location(device="readme", lat=12.5)
        deadline = time.monotonic() + 20
        line = ""
        poller_fd = example.stdout
        import select
        while time.monotonic() < deadline:
            send(pub, "location.raw.readme", body)
            ready, _, _ = select.select([poller_fd], [], [], 0.1)
            if ready:
                line = example.stdout.readline()
                break
        assert line.split() == ["location.raw.readme", "12.5", "121.4737", "5.0"]
    finally:
        example.kill()
        example.wait()
