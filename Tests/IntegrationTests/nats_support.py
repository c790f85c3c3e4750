"""A real three-node NATS cluster (scripts/nats-cluster.sh) on free loopback ports, and helpers
to run Locus services on it."""
import json
import os
import pathlib
import random
import socket
import subprocess
import time

import nats

from conftest import REPO, bin_dir, stop_process

SCRIPT = REPO / "scripts" / "nats-cluster.sh"


def free_port_base():
    """A client port P with P..P+2, P+2000..P+2002 (routes) and P+4000..P+4002 (monitoring) free."""
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(20_000, 25_000)
        ports = [base + offset + node for offset in (0, 2000, 4000) for node in range(3)]
        try:
            sockets = []
            for port in ports:
                s = socket.socket()
                s.bind(("127.0.0.1", port))
                sockets.append(s)
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
        return base
    raise RuntimeError("no free port range for a NATS cluster")


class Cluster:
    """Three nats-server processes with JetStream; `endpoint` goes in LOCUS_PUB."""

    def __init__(self, directory: pathlib.Path, raw_partitions=2, fused_partitions=3, auth_file=None):
        self.directory = directory
        self.port = free_port_base()
        self.env = dict(os.environ, LOCUS_NATS_PORT=str(self.port), LOCUS_NATS_RAW_PARTITIONS=str(raw_partitions),
                        LOCUS_NATS_FUSED_PARTITIONS=str(fused_partitions))
        if auth_file:
            self.env["LOCUS_NATS_AUTH"] = str(auth_file)
        result = subprocess.run(["bash", str(SCRIPT), "up", str(directory)], env=self.env, capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 0, f"nats-cluster.sh up failed: {result.stderr}"
        self.endpoint = result.stdout.strip()
        self.urls = self.endpoint.split(",")

    def pid(self, node):
        return int((self.directory / f"n{node}" / "pid").read_text())

    def node_of_port(self, port):
        return port - self.port + 1

    def restart(self, node):
        """Starts a node that was killed (the script starts only the missing ones)."""
        result = subprocess.run(["bash", str(SCRIPT), "up", str(self.directory)], env=self.env, capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 0, f"restarting n{node} failed: {result.stderr}"

    def down(self):
        subprocess.run(["bash", str(SCRIPT), "down", str(self.directory)], env=self.env, timeout=60)

    def service_env(self, **extra):
        return dict(os.environ, LOCUS_PUB=self.endpoint, **extra)


def start_service(cluster, program, *args, env_extra=None, log=None, cwd=None):
    env = cluster.service_env(**(env_extra or {}))
    return subprocess.Popen([str(bin_dir() / program), *args, "--health-interval", "0.5"], env=env, cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=log if log is not None else subprocess.DEVNULL)


def stop(process, timeout=15):
    """A service on the cluster gets longer to stop: it confirms what it published first."""
    return stop_process(process, timeout)


def wait_until(predicate, timeout, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()


async def stored(urls, subject, **login):
    """Every message the streams hold on `subject`, decoded, oldest first: an ordered consumer
    read until nothing more comes for 2 s. `login`: the client's credentials, if the cluster asks."""
    client = await nats.connect(servers=urls, **login)
    js = client.jetstream()
    sub = await js.subscribe(subject, ordered_consumer=True)
    found = []
    while True:
        try:
            message = await sub.next_msg(timeout=2)
        except nats.errors.TimeoutError:
            break
        found.append(json.loads(message.data))
    await client.close()
    return found
