"""Real outside programs for the doors to other software: a test PKI made with openssl, a real
mosquitto broker with passwords, an ACL and a TLS listener that wants client certificates,
and a free port. Used by the phone, MQTT sink, webhook and metrics tests."""
import pathlib
import socket
import subprocess
import threading
import time


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


class TestCertificates:
    __test__ = False  # a helper, not a test class
    """A certificate authority with a server certificate for 127.0.0.1/localhost and a client
    certificate, plus a second, unrelated CA whose server certificate nobody trusts."""

    def __init__(self, directory: pathlib.Path):
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.ca = self._authority("ca", "Locus test CA")
        self.server_cert, self.server_key = self._certificate("server", "ca", "localhost",
                                                              "subjectAltName=IP:127.0.0.1,DNS:localhost")
        self.client_cert, self.client_key = self._certificate("client", "ca", "locus-client", "extendedKeyUsage=clientAuth")
        self.other_ca = self._authority("other-ca", "Some other CA")
        self.other_server_cert, self.other_server_key = self._certificate("other-server", "other-ca", "localhost",
                                                                          "subjectAltName=IP:127.0.0.1,DNS:localhost")

    def _authority(self, name, subject):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={subject}",
                "-keyout", f"{name}.key", "-out", f"{name}.pem", cwd=self.directory)
        return self.directory / f"{name}.pem"

    def _certificate(self, name, authority, common_name, extension):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={common_name}",
                "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=self.directory)
        (self.directory / f"{name}.ext").write_text(extension + "\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{authority}.pem", "-CAkey", f"{authority}.key",
                "-CAcreateserial", "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.pem", cwd=self.directory)
        return self.directory / f"{name}.pem", self.directory / f"{name}.key"


class Mosquitto:
    """mosquitto with anonymous access off, a password file (mosquitto_passwd), an ACL, a plain
    listener and a TLS listener that requires a client certificate from the test CA."""

    def __init__(self, directory: pathlib.Path, pki: TestCertificates, users: dict, acl: str):
        self.directory = directory
        self.pki = pki
        self.port = free_port()
        self.tls_port = free_port()
        passwords = directory / "passwords"
        for index, (user, password) in enumerate(users.items()):
            subprocess.run(["mosquitto_passwd", "-b", *(["-c"] if index == 0 else []), str(passwords), user, password],
                           check=True, capture_output=True, timeout=30)
        (directory / "acl").write_text(acl)
        config = directory / "mosquitto.conf"
        config.write_text(f"""user root
per_listener_settings false
allow_anonymous false
password_file {passwords}
acl_file {directory / 'acl'}
listener {self.port} 127.0.0.1
listener {self.tls_port} 127.0.0.1
cafile {pki.ca}
certfile {pki.server_cert}
keyfile {pki.server_key}
require_certificate true
""")
        self.lines = []
        self.process = subprocess.Popen(["mosquitto", "-c", str(config), "-v"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_for_log("running")

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line)

    def wait_for_log(self, text, timeout=15, start=0):
        """Waits until a log line (from line `start` on) contains `text`; returns its index."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for index in range(start, len(self.lines)):
                if text in self.lines[index]:
                    return index
            if self.process.poll() is not None:
                raise AssertionError(f"mosquitto exited: {''.join(self.lines)}")
            time.sleep(0.05)
        raise AssertionError(f"mosquitto never logged {text!r}: {''.join(self.lines[-30:])}")

    def client_args(self, user=None, password=None, tls=True):
        """mosquitto_pub/mosquitto_sub arguments to reach this broker."""
        args = ["-h", "127.0.0.1", "-p", str(self.tls_port if tls else self.port)]
        if tls:
            args += ["--cafile", str(self.pki.ca), "--cert", str(self.pki.client_cert), "--key", str(self.pki.client_key)]
        if user is not None:
            args += ["-u", user]
        if password is not None:
            args += ["-P", password]
        return args

    def publish(self, topic, payload, user="alice", password="alice-secret", tls=True, check=True):
        """mosquitto_pub with QoS 1; returns the finished process."""
        done = subprocess.run(["mosquitto_pub", *self.client_args(user, password, tls), "-q", "1", "-t", topic, "-m", payload],
                              capture_output=True, text=True, timeout=30)
        if check:
            assert done.returncode == 0, done.stderr
        return done

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
