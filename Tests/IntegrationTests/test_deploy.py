"""deploy/: the systemd units verify, and the example configs only use options the programs have."""
import json
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import REPO, bin_dir

UNITS = REPO / "deploy" / "systemd"
CONFIGS = REPO / "deploy" / "config"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_units_verify(tmp_path):
    for unit in UNITS.iterdir():
        text = unit.read_text().replace("/usr/local/bin/", f"{bin_dir()}/")
        (tmp_path / unit.name).write_text(text)
    for name in re.findall(r"locus-\w+(?=\.service)", " ".join(u.name for u in UNITS.iterdir())):
        assert (bin_dir() / name).exists(), f"unit for {name} but no such program"
    result = subprocess.run(["systemd-analyze", "verify", *sorted(str(p) for p in tmp_path.iterdir())],
                            capture_output=True, text=True, timeout=60)
    problems = [line for line in result.stderr.splitlines() if "locus" in line]
    assert result.returncode == 0 and not problems, result.stderr


def test_every_unit_is_type_notify_restarts_and_is_hardened():
    for unit in UNITS.glob("*.service"):
        text = unit.read_text()
        for directive in ("Type=notify", "Restart=on-failure", "NoNewPrivileges=yes", "ProtectSystem=strict",
                          "User=locus", "RuntimeDirectory=locus"):
            assert directive in text, f"{unit.name} lacks {directive}"


def test_example_configs_use_only_real_options():
    for config in CONFIGS.glob("*.json"):
        program = bin_dir() / f"locus-{config.stem}"
        assert program.exists(), config.name
        help_text = subprocess.run([str(program), "--help"], capture_output=True, text=True, timeout=10).stdout
        for key in json.loads(config.read_text()):
            assert f"--{key} " in help_text or f"--{key}\n" in help_text, f"{config.name}: {key} is not an option"


def test_bus_announces_readiness_to_systemd(tmp_path):
    """Type=notify: the bus sends READY=1 on $NOTIFY_SOCKET once it listens."""
    import os
    import socket
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(10)
    env = dict(os.environ, NOTIFY_SOCKET=path, LOCUS_PUB=f"ipc://{tmp_path}/pub", LOCUS_SUB=f"ipc://{tmp_path}/sub")
    process = subprocess.Popen([str(bin_dir() / "locus-bus")], env=env, stderr=subprocess.DEVNULL)
    try:
        assert sock.recv(64) == b"READY=1"
    finally:
        process.terminate()
        assert process.wait(timeout=5) == 0
        sock.close()
