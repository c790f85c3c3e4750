"""locus-metrics with the real programs: a stack on a real bus, /metrics checked by promtool,
and a real Prometheus server (Debian's prometheus) started on loopback with a generated config
that scrapes it; queries through its HTTP API return the expected series."""
import json
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import bin_dir, envelope
from door_support import free_port
from gpsd_support import Processes


@pytest.fixture
def processes(tmp_path):
    started = Processes(tmp_path)
    yield started
    started.stop()


def get(url, timeout=5):
    """(status, body) of a GET, also for error statuses."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def wait_until(check, what, timeout=30):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except (OSError, ValueError) as error:
            last = error
        time.sleep(0.2)
    raise AssertionError(f"{what} did not happen in {timeout} s (last: {last})")


def sample(text, series):
    """The value of the sample line that starts with `series ` in an exposition."""
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line.rsplit(" ", 1)[1])
    return None


def test_metrics_pass_promtool_and_a_real_prometheus_scrapes_them(bus, processes, tmp_path):
    port = free_port()
    common = ["--health-interval", "0.5"]
    processes.start([str(bin_dir() / "locus-fusion"), *common], bus.env, "fusion")
    processes.start([str(bin_dir() / "locus-notifier"), "--sink", f"jsonl:{tmp_path / 'n.jsonl'}", "--state", str(tmp_path / "outbox"),
                     "--no-replay", *common], bus.env, "notifier")
    processes.start([str(bin_dir() / "locus-metrics"), "--listen", f"127.0.0.1:{port}", *common], bus.env, "metrics")
    base = f"http://127.0.0.1:{port}"
    assert wait_until(lambda: get(f"{base}/readyz")[0] == 200, "readiness") and get(f"{base}/healthz") == (200, "alive\n")

    # Wait until every service's health has reached the exporter, then make something happen.
    wait_until(lambda: all(f'locus_service_up{{service="{name}",src="{name}/main"}} 1' in get(f"{base}/metrics")[1]
                           for name in ["bus", "fusion", "notifier", "metrics"]), "health of every service")
    sock = bus.subscriber("notify.", "location.fused.")
    publisher = bus.publisher()
    now = time.time()
    publisher.send_multipart([b"location.raw.van-3", json.dumps(envelope(
        "location", t=now, device="van-3", source="gps", lat=48.137, lon=11.575, hacc=6)).encode()])
    event = envelope("region.event", t=now, owner="app", regionId="depot", device="van-3", event="enter", state="inside",
                     cause="crossing", location={"lat": 48.137, "lon": 11.575, "hacc": 6, "t": now})
    publisher.send_multipart([b"region.event.app", json.dumps(event).encode()])
    seen = set()
    bus.wait_for(sock, lambda topic, body: seen.add(topic if topic != "notify.jsonl" or body["status"] == "delivered" else "") or
                 {"notify.jsonl", "location.fused.van-3"} <= seen)

    def exposition_with_activity():
        status, text = get(f"{base}/metrics")
        return text if status == 200 and sample(text, 'locus_notifications_total{sink="jsonl",status="delivered"}') == 1 \
            and sample(text, 'locus_fix_age_seconds{device="van-3"}') is not None \
            and (sample(text, 'locus_messages_received_total{service="fusion",src="fusion/main"}') or 0) >= 1 else None
    text = wait_until(exposition_with_activity, "the delivery and the fix in /metrics")
    checked = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0 and checked.stdout.strip() == "" and checked.stderr.strip() == "", checked.stdout + checked.stderr
    assert sample(text, 'locus_geofence_events_total{kind="enter"}') == 1
    assert sample(text, 'locus_notifications_total{sink="jsonl",status="failed"}') == 0
    assert sample(text, 'locus_notifier_outbox_backlog{service="notifier",sink="jsonl",src="notifier/main"}') is not None
    assert sample(text, 'locus_messages_received_total{service="fusion",src="fusion/main"}') >= 1
    assert sample(text, 'locus_bus_dropped_total{service="bus",src="bus/main"}') == 0
    assert 0 <= sample(text, 'locus_fix_age_seconds{device="van-3"}') < 60
    for family in ["locus_service_up", "locus_messages_sent_total", "locus_fusion_devices", "locus_errors_total"]:
        assert f"# TYPE {family} " in text or family == "locus_errors_total", family

    # A real Prometheus, on loopback, scraping every second.
    web = free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: locus
    static_configs:
      - targets: ["127.0.0.1:{port}"]
""")
    assert subprocess.run(["promtool", "check", "config", str(config)], capture_output=True, timeout=30).returncode == 0
    processes.start(["prometheus", f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                     f"--web.listen-address=127.0.0.1:{web}"], None, "prometheus", stdout=subprocess.DEVNULL)
    api = f"http://127.0.0.1:{web}"
    wait_until(lambda: get(f"{api}/-/ready")[0] == 200, "Prometheus ready", timeout=60)

    def query(expression):
        status, body = get(f"{api}/api/v1/query?" + urllib.parse.urlencode({"query": expression}))
        answer = json.loads(body)
        assert status == 200 and answer["status"] == "success", body
        return answer["data"]["result"]

    up = wait_until(lambda: query('up{job="locus"}') or None, "a scrape", timeout=60)
    assert up[0]["value"][1] == "1"
    delivered = wait_until(lambda: query('locus_notifications_total{sink="jsonl",status="delivered"}') or None, "the series in Prometheus")
    assert delivered[0]["metric"]["job"] == "locus" and delivered[0]["value"][1] == "1"
    services = wait_until(lambda: {result["metric"]["service"] for result in query("locus_service_up == 1")} >=
                          {"bus", "fusion", "notifier", "metrics"} or None, "every service up in Prometheus")
    assert services
    assert query('locus_geofence_events_total{kind="enter"}')[0]["value"][1] == "1"
