"""Authorization on NATS (docs/nats.md, "Authorization"): `locus nats config` turns the bus's
allow-list and authorization state into NATS users with subject permissions, on a real
three-node cluster: a reduced client receives only location.approx.* across 10 000 messages,
a change of authorization applies live (config reload), only providers publish positions and
only the authority statuses, Locus services run with their credentials, and refused
credentials are retried until they are right, with nothing lost."""
import asyncio
import json
import os
import subprocess

import nats
import pytest
import zmq

from conftest import bin_dir, envelope
from nats_support import Cluster, start_service, stop, stored, wait_until

SUBJECTS = ["location.raw.d%2E1", "location.fused.d%2E1", "location.approx.d%2E1", "location.significant.d%2E1", "visit.d%2E1"]


def unpartitioned(subject):
    """The subject as published: the servers insert a partition token in positions (docs/nats.md)."""
    tokens = subject.split(".")
    if tokens[:2] in (["location", "raw"], ["location", "fused"]) and len(tokens) == 4 and tokens[2].isdigit():
        del tokens[2]
    return ".".join(tokens)


class Authorization:
    """An allow-list, an authorization state and the section `locus nats config` writes from them."""

    def __init__(self, directory):
        self.directory = directory
        self.state = directory / "state"
        self.state.mkdir(parents=True)
        self.out = directory / "auth.conf"
        self.credentials = directory / "credentials"
        def key():
            return zmq.curve_keypair()[0].decode()
        clients = [{"name": "svc", "publicKey": key(), "roles": ["service"]},
                   {"name": "gps", "publicKey": key(), "roles": ["provider"]},
                   {"name": "app", "publicKey": key(), "manifest": {"whenInUse": "Shows where you are"}}]
        (directory / "allow.json").write_text(json.dumps({"clients": clients}))
        self.set("app", "whenInUse", "reduced")

    def set(self, client, status, accuracy="full"):
        path = self.state / "auth-state.json"
        state = json.loads(path.read_text()) if path.exists() else {"version": 1, "clients": {}}
        state["clients"][client] = {"status": status, "accuracy": accuracy}
        path.write_text(json.dumps(state))

    def write(self, *reload):
        result = subprocess.run([str(bin_dir() / "locus"), "nats", "config", "--allow", str(self.directory / "allow.json"),
                                 "--state", str(self.state), "--out", str(self.out),
                                 *[arg for pid in reload for arg in ("--reload", str(pid))]],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def login(self, user):
        name, password = (self.credentials / f"{user}.credentials").read_text().strip().split(":", 1)
        return {"user": name, "password": password, "inbox_prefix": f"_INBOX_{name}".encode()}


@pytest.fixture
def secured(tmp_path):
    authorization = Authorization(tmp_path / "auth")
    authorization.write()
    cluster = Cluster(tmp_path / "nats", auth_file=authorization.out)
    yield cluster, authorization
    cluster.down()


async def connect(cluster, login, errors=None):
    async def on_error(error):
        if errors is not None:
            errors.append(str(error))
    return await nats.connect(servers=cluster.urls, error_cb=on_error, max_reconnect_attempts=2, **login)


def test_a_reduced_client_receives_only_approximate_locations(secured):
    cluster, authorization = secured
    async def run():
        errors, got = [], []
        app = await connect(cluster, authorization.login("app"), errors)
        async def on_message(message):
            got.append(message.subject)
        for wider in (">", "location.>", "location.fused.>", "location.raw.>", "visit.>"):
            await app.subscribe(wider, cb=on_message)
        await app.subscribe("location.approx.>", cb=on_message)
        await app.flush()
        svc = await connect(cluster, authorization.login("svc"))
        for n in range(10_000):
            await svc.publish(SUBJECTS[n % len(SUBJECTS)], b"{}")
        await svc.flush()
        approx = 10_000 // len(SUBJECTS)
        for _ in range(200):
            if len(got) >= approx:
                break
            await asyncio.sleep(0.05)
        await app.close()
        await svc.close()
        return errors, got
    errors, got = asyncio.run(run())
    assert set(got) == {"location.approx.d%2E1"}
    assert len(got) == 2_000, "every approximate location, nothing else, across 10 000 messages"
    for wider in (">", "location.>", "location.fused.>", "location.raw.>", "visit.>"):
        assert any(f'subscription to "{wider}"' in error for error in errors), (wider, errors)


def test_a_change_of_authorization_applies_live(secured):
    cluster, authorization = secured
    pids = [cluster.directory / f"n{n}" / "pid" for n in (1, 2, 3)]
    async def run():
        errors, got = [], []
        app = await connect(cluster, authorization.login("app"), errors)
        svc = await connect(cluster, authorization.login("svc"))
        async def on_message(message):
            got.append(message.subject)
        await app.subscribe("location.approx.>", cb=on_message)
        await app.subscribe("health.>", cb=on_message)
        await app.flush()

        async def publish_then_sentinel(subjects):
            """Publishes, then a health sentinel the app may always receive; returns what arrived before it."""
            got.clear()
            for subject in subjects:
                await svc.publish(subject, b"{}")
            await svc.publish("health.sentinel", b"{}")
            await svc.flush()
            for _ in range(200):
                if "health.sentinel" in got:
                    break
                await asyncio.sleep(0.05)
            assert "health.sentinel" in got
            return [s for s in got if s != "health.sentinel"]

        # Full accuracy granted: the section is written again and the servers reload it.
        authorization.set("app", "whenInUse", "full")
        assert "signalled" in authorization.write(*pids)
        for _ in range(100):
            errors.clear()
            await app.subscribe("location.fused.>", cb=on_message)
            await app.flush()
            await asyncio.sleep(0.1)
            if not errors:
                break
        assert not errors, errors
        full = await publish_then_sentinel(["location.fused.d%2E1", "location.approx.d%2E1"])
        # Denied: the subscriptions the client has lose what it may no longer receive.
        authorization.set("app", "denied")
        authorization.write(*pids)
        denied = []
        for _ in range(100):
            denied = await publish_then_sentinel(["location.fused.d%2E1", "location.approx.d%2E1"])
            if not denied:
                break
        await app.close()
        await svc.close()
        return full, denied
    full, denied = asyncio.run(run())
    assert sorted(map(unpartitioned, full)) == ["location.approx.d%2E1", "location.fused.d%2E1"]
    assert denied == [], "after the reload a denied client receives no location"


def test_only_providers_publish_positions_and_only_the_authority_statuses(secured):
    cluster, authorization = secured
    async def run():
        received, refusals = [], []
        svc = await connect(cluster, authorization.login("svc"), refusals)
        async def on_message(message):
            received.append(message.subject)
        await svc.subscribe("location.raw.>", cb=on_message)
        await svc.subscribe("auth.status.>", cb=on_message)
        await svc.flush()
        app = await connect(cluster, authorization.login("app"), refusals)
        await app.publish("location.raw.spoofed", b"{}")
        await app.publish("auth.status.app", b"{}")
        await app.flush()
        await svc.publish("auth.status.app", b"{}")
        await svc.flush()
        authority = await connect(cluster, authorization.login("authority"))
        await authority.publish("auth.status.app", b"{}")
        await authority.flush()
        gps = await connect(cluster, authorization.login("gps"), refusals)
        await gps.publish("location.raw.gps1", b"{}")
        await gps.publish("auth.status.gps", b"{}")
        await gps.publish("location.raw.sentinel", b"{}")
        await gps.flush()
        for _ in range(200):
            if "location.raw.sentinel" in map(unpartitioned, received):
                break
            await asyncio.sleep(0.05)
        for client in (svc, app, authority, gps):
            await client.close()
        return received, refusals
    received, refusals = asyncio.run(run())
    assert list(map(unpartitioned, received)) == ["auth.status.app", "location.raw.gps1", "location.raw.sentinel"], received
    # The servers check the subject after inserting the partition token.
    assert sum('publish to "location.raw.' in r and 'spoofed"' in r for r in refusals) == 1, refusals
    assert sum('publish to "auth.status.' in r for r in refusals) == 3, "the app, a service and a provider are refused"


def test_services_run_with_their_credentials(secured, tmp_path):
    """A service (everything) and a provider (its positions, its own inbox) on the secured cluster."""
    cluster, authorization = secured
    log = tmp_path / "fusion.log"
    fusion = start_service(cluster, "locus-fusion", "--nats-credentials", str(authorization.credentials / "svc.credentials"),
                           log=open(log, "w"))
    provider_log = tmp_path / "provider.log"
    provider = None
    try:
        assert wait_until(lambda: "started: on NATS" in log.read_text(), 60), log.read_text()
        async def fused():
            svc = await connect(cluster, authorization.login("svc"))
            got = []
            async def on_message(message):
                got.append(json.loads(message.data))
            await svc.subscribe("location.fused.>", cb=on_message)
            await svc.flush()
            nonlocal provider
            provider = start_service(cluster, "locus-provider", "fixed", "--lat", "31.2", "--lon", "121.4", "--count", "5",
                                     "--device-id", "fixed.1", "--nats-credentials", str(authorization.credentials / "gps.credentials"),
                                     log=open(provider_log, "w"))
            for _ in range(600):
                if got:
                    break
                await asyncio.sleep(0.1)
            await svc.close()
            return got
        got = asyncio.run(fused())
        assert got and got[0]["device"] == "fixed.1", provider_log.read_text() + log.read_text()
        assert "Permissions Violation" not in provider_log.read_text() + log.read_text()
    finally:
        stop(fusion)
        if provider:
            stop(provider)


def test_refused_credentials_are_retried_and_nothing_is_lost_once_they_are_right(secured, tmp_path):
    cluster, authorization = secured
    # The streams exist (a service made them).
    log = tmp_path / "fusion.log"
    fusion = start_service(cluster, "locus-fusion", "--nats-credentials", str(authorization.credentials / "svc.credentials"),
                           log=open(log, "w"))
    assert wait_until(lambda: "started: on NATS" in log.read_text(), 60), log.read_text()
    stop(fusion)
    wrong = tmp_path / "gps.credentials"
    wrong.write_text("gps:not-the-password\n")
    os.chmod(wrong, 0o600)
    provider_log = tmp_path / "provider.log"
    provider = start_service(cluster, "locus-provider", "fixed", "--lat", "31.2", "--lon", "121.4", "--count", "20",
                             "--device-id", "refused", "--nats-credentials", str(wrong), log=open(provider_log, "w"))
    try:
        assert wait_until(lambda: provider_log.read_text().count("Authorization Violation") >= 2, 60), provider_log.read_text()
        assert provider.poll() is None, "it keeps trying"
        assert "retrying in" in provider_log.read_text()
        wrong.write_text((authorization.credentials / "gps.credentials").read_text())
        assert wait_until(lambda: "started: on NATS" in provider_log.read_text(), 60), provider_log.read_text()
        fixes = wait_until(lambda: (lambda s: s if len(s) >= 20 else None)(
            asyncio.run(stored(cluster.urls, "location.raw.*.refused", **authorization.login("svc")))), 60)
        assert fixes and len(fixes) == 20 and len({f["id"] for f in fixes}) == 20, "every fix, once"
        assert provider.wait(timeout=60) == 0
        health = asyncio.run(stored(cluster.urls, "health.provider", **authorization.login("svc")))
        assert health and health[-1]["counters"]["natsConnectFailures"] >= 2, "each refusal is counted"
    finally:
        stop(provider)
