"""Every outside program the tests and scripts run comes from an install step (scripts/install-deps.sh)."""
import pathlib
import shutil
import subprocess
import sys

from conftest import REPO

CHECK = REPO / "scripts" / "check-test-programs.py"


def run_check(root):
    return subprocess.run([sys.executable, str(CHECK), "--root", str(root)], capture_output=True, text=True, timeout=120)


def test_every_program_the_tests_run_is_installed_by_an_install_step():
    done = run_check(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    table = done.stdout
    # The programs that were missing on a fresh machine once are listed with their package.
    assert "mosquitto_sub" in table and "debian mosquitto-clients" in table, table
    assert "gpsfake" in table and "debian gpsd-clients" in table, table


def test_the_check_fails_for_a_program_no_install_step_provides(tmp_path):
    """A copy of the repository's install script and a test tree that runs three unprovided programs."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "install-deps.sh", tmp_path / "scripts" / "install-deps.sh")
    (tmp_path / "Package.swift").write_text('.executableTarget(name: "locus-thing")\n')
    tests = tmp_path / "Tests" / "Fake"
    tests.mkdir(parents=True)
    (tests / "test_fake.py").write_text(
        "import shutil, subprocess, pytest\n"
        "def test_git():\n"
        "    subprocess.run(['git', 'status'])\n"
        "    subprocess.run(['locus-thing', '--help'])\n"
        "@pytest.mark.skipif(shutil.which('no-such-tool-anywhere') is None, reason='needs a tool')\n"
        "def test_missing():\n"
        "    subprocess.Popen(['no-such-tool-anywhere'])\n")
    (tmp_path / "scripts" / "helper.sh").write_text("#!/bin/sh\nset -e\nfor x in 1 2; do git log | head -1; done\n")
    done = run_check(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    problems = done.stderr
    # git is on the machine (it made this checkout) from a package install-deps.sh does not name.
    assert "git (Tests/Fake/test_fake.py:3, scripts/helper.sh): /usr/bin/git comes from Debian package git" in problems, problems
    assert "no-such-tool-anywhere" in problems and "not on this machine" in problems, problems
    assert "its reason does not say so: 'needs a tool'" in problems, problems
    assert "locus-thing" not in done.stdout, "the project's own programs are not outside programs"
    assert "head" in done.stdout and "(essential)" in done.stdout, done.stdout
    assert "scripts/helper.sh" in done.stdout
