"""The notifier's network sinks over TLS with the real programs: webhooks to a local HTTPS
server whose certificate comes from a test CA made with openssl (delivered exactly once; an
untrusted certificate refused with libcurl's reason and retried until it is trusted, nothing
lost), and the MQTT sink through a TLS listener of a real mosquitto with a password and a
client certificate."""
import http.server
import json
import select
import ssl
import subprocess
import threading
import time

import pytest

from conftest import bin_dir
from door_support import Mosquitto, TestCertificates
from test_notifier import FOUR, T0, write_input


class HTTPSReceiver:
    """An HTTPS webhook receiver that keeps every request and counts refused TLS handshakes;
    its certificate can be swapped while it runs."""

    def __init__(self, certificate, key):
        self.requests = []
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer.lock:
                    outer.requests.append((self.headers["Idempotency-Key"], body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            failures = 0

            def get_request(self):
                sock, address = self.socket.accept()
                try:
                    return outer.context.wrap_socket(sock, server_side=True), address
                except OSError:
                    Server.failures += 1
                    sock.close()
                    raise

        self.use(certificate, key)
        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def use(self, certificate, key):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        self.context = context

    @property
    def failures(self):
        return self.server.failures

    def keys(self):
        with self.lock:
            return [key for key, _ in self.requests]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def certificates(tmp_path):
    return TestCertificates(tmp_path / "pki")


def notifier(*args):
    return [str(bin_dir() / "locus-notifier"), "--stdio", *args]


def parse(stdout):
    return [(line.split(" ", 1)[0], json.loads(line.split(" ", 1)[1])) for line in stdout.splitlines() if line]


def test_webhook_over_https_with_a_test_ca_delivers_each_notification_once(tmp_path, certificates):
    receiver = HTTPSReceiver(certificates.server_cert, certificates.server_key)
    try:
        with open(write_input(tmp_path / "in.txt", FOUR)) as stdin:
            done = subprocess.run(notifier("--sink", f"webhook:{receiver.url}", "--webhook-ca-file", str(certificates.ca),
                                           "--webhook-header", "Authorization: Bearer t0k3n", "--state", str(tmp_path / "s")),
                                  stdin=stdin, capture_output=True, text=True, timeout=60)
    finally:
        receiver.stop()
    assert done.returncode == 0, done.stderr
    assert receiver.keys() == ["n-e1", "n-e2", "n-e3", "n-e4"]
    assert [body["ref"] for _, body in receiver.requests] == ["e1", "e2", "e3", "e4"]
    statuses = [(body["ref"], body["status"]) for topic, body in parse(done.stdout) if topic == "notify.webhook"]
    assert statuses == [(ref, "delivered") for ref in ["e1", "e2", "e3", "e4"]]


def test_webhook_refuses_an_untrusted_certificate_retries_and_loses_nothing(tmp_path, certificates):
    receiver = HTTPSReceiver(certificates.other_server_cert, certificates.other_server_key)
    try:
        with open(write_input(tmp_path / "in.txt", FOUR)) as stdin:
            process = subprocess.Popen(notifier("--sink", f"webhook:{receiver.url}", "--webhook-ca-file", str(certificates.ca),
                                                "--retry-initial", "0.1", "--retry-max", "0.4", "--drain-timeout", "60",
                                                "--state", str(tmp_path / "s")),
                                       stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while receiver.failures < 3:
            assert time.monotonic() < deadline, "the notifier did not try (and retry) the untrusted receiver"
            time.sleep(0.05)
        assert receiver.keys() == [], "nothing is sent to a server whose certificate does not verify"
        receiver.use(certificates.server_cert, certificates.server_key)
        stdout, stderr = process.communicate(timeout=90)
    finally:
        receiver.stop()
    assert process.returncode == 0, stderr
    assert receiver.keys() == ["n-e1", "n-e2", "n-e3", "n-e4"], "each exactly once, in order"
    out = parse(stdout)
    errors = [body for topic, body in out if topic == "error.notifier"]
    assert any(e["code"] == "sinkUnavailable" and "SSL certificate problem" in e["message"] and e["ref"] == "e1" for e in errors), errors
    statuses = [(body["ref"], body["status"]) for topic, body in out if topic == "notify.webhook"]
    assert ("e1", "retrying") in statuses
    assert [ref for ref, status in statuses if status == "delivered"] == ["e1", "e2", "e3", "e4"]


def test_webhook_redirects_are_refused_not_followed(tmp_path):
    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(301)
            self.send_header("Location", "http://127.0.0.1:9/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with open(write_input(tmp_path / "in.txt", FOUR[:1])) as stdin:
            done = subprocess.run(notifier("--sink", f"webhook:http://127.0.0.1:{server.server_address[1]}/hook", "--state", str(tmp_path / "s")),
                                  stdin=stdin, capture_output=True, text=True, timeout=60)
    finally:
        server.shutdown()
        server.server_close()
    out = parse(done.stdout)
    assert [(body["ref"], body["status"]) for topic, body in out if topic == "notify.webhook"] == [("e1", "failed")]
    failure = [body for topic, body in out if topic == "error.notifier" and body["code"] == "deliveryFailed"]
    assert "redirect to http://127.0.0.1:9/elsewhere refused" in failure[0]["message"], failure


MQTT_ACL = "user locus\ntopic readwrite owntracks/#\n"


def test_mqtt_sink_delivers_through_a_tls_listener_with_a_password(tmp_path, certificates):
    broker = Mosquitto(tmp_path, certificates, {"locus": "locus-secret", "watcher": "watcher-secret"},
                       MQTT_ACL + "user watcher\ntopic read owntracks/#\n")
    (tmp_path / "password").write_text("locus-secret\n")
    tls = ["--mqtt-ca-file", str(certificates.ca), "--mqtt-cert", str(certificates.client_cert), "--mqtt-key", str(certificates.client_key)]
    subscriber = None
    try:
        subscriber = subprocess.Popen(["mosquitto_sub", *broker.client_args("watcher", "watcher-secret"), "-t", "owntracks/#", "-v", "-C", "2"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        broker.wait_for_log("Received SUBSCRIBE")
        with open(write_input(tmp_path / "in.txt", FOUR[:2])) as stdin:
            done = subprocess.run(notifier("--sink", f"mqtt:127.0.0.1:{broker.tls_port}", "--mqtt-user", "alice", *tls,
                                           "--mqtt-username", "locus", "--mqtt-password-file", str(tmp_path / "password"),
                                           "--state", str(tmp_path / "s")),
                                  stdin=stdin, capture_output=True, text=True, timeout=60)
        received = subscriber.communicate(timeout=20)[0].splitlines()
    finally:
        if subscriber and subscriber.poll() is None:
            subscriber.kill()
        broker.stop()
    assert done.returncode == 0, done.stderr
    assert [line.split(" ", 1)[0] for line in received] == ["owntracks/alice/truck-7/event"] * 2
    assert [json.loads(line.split(" ", 1)[1])["event"] for line in received] == ["enter", "leave"]
    statuses = [(body["ref"], body["status"]) for topic, body in parse(done.stdout) if topic == "notify.mqtt"]
    assert statuses == [("e1", "delivered"), ("e2", "delivered")]


def test_mqtt_sink_says_why_the_broker_refused_it_and_keeps_the_notification(tmp_path, certificates):
    broker = Mosquitto(tmp_path, certificates, {"locus": "locus-secret"}, MQTT_ACL)
    (tmp_path / "password").write_text("not-the-password\n")
    try:
        with open(write_input(tmp_path / "in.txt", FOUR[:1])) as stdin:
            done = subprocess.run(notifier("--sink", f"mqtt:127.0.0.1:{broker.port}", "--mqtt-username", "locus",
                                           "--mqtt-password-file", str(tmp_path / "password"), "--drain-timeout", "1",
                                           "--retry-initial", "0.2", "--state", str(tmp_path / "s")),
                                  stdin=stdin, capture_output=True, text=True, timeout=60)
    finally:
        broker.stop()
    out = parse(done.stdout)
    errors = [body for topic, body in out if topic == "error.notifier"]
    assert any(e["code"] == "sinkUnavailable" and "refused the connection" in e["message"] and "not authorised" in e["message"]
               for e in errors), errors
    assert any(e["code"] == "drainTimeout" for e in errors), "the notification stays in the outbox"
    assert {body["status"] for topic, body in out if topic == "notify.mqtt"} == {"retrying"}


def mapped_libraries(pid):
    with open(f"/proc/{pid}/maps") as maps:
        return {line.split()[-1].rsplit("/", 1)[-1] for line in maps if "/" in line}


@pytest.mark.parametrize("sink, loads_curl", [("jsonl:{dir}/n.jsonl", False), ("webhook:https://127.0.0.1:9/hook", True)])
def test_libcurl_is_loaded_only_for_a_webhook_sink(tmp_path, sink, loads_curl):
    """libcurl and the TLS stack it brings are a quarter of the notifier's resident memory: a
    notifier without a webhook never maps them; one with a webhook does (its URL is checked by
    libcurl's parser before the sinks are set up)."""
    process = subprocess.Popen(notifier("--sink", sink.format(dir=tmp_path), "--state", str(tmp_path / "s")),
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        # "sinks: …" is logged once every sink is set up.
        deadline = time.monotonic() + 20
        logged = ""
        while "sinks:" not in logged:
            assert time.monotonic() < deadline and process.poll() is None, logged
            if select.select([process.stderr], [], [], 0.5)[0]:
                logged += process.stderr.readline()
        libraries = mapped_libraries(process.pid)
        assert any(name.startswith("libzmq") for name in libraries), sorted(libraries)
        assert any(name.startswith("libcurl") for name in libraries) == loads_curl, sorted(libraries)
    finally:
        process.stdin.close()
        process.wait(timeout=30)
