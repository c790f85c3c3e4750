"""A newcomer's first run: the README's commands on a fresh runtime and state directory print no
warning, error or restart line, and `locus up` leaves a misconfigured service down instead of
restarting it for ever."""
import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import time

from conftest import REPO, bin_dir


def readme_commands():
    """The `locus …` lines of the README's code block that starts the stack (`locus up &`)."""
    text = (REPO / "README.md").read_text()
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        lines = [line.split("#", 1)[0].strip() if not line.strip().startswith("locus pub") else line.strip()
                 for line in block.splitlines()]
        lines = [line for line in lines if line]
        if "locus up &" in lines:
            return lines
    raise AssertionError("README.md has no code block with `locus up &`")


def fresh_environment(tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime), XDG_STATE_HOME=str(tmp_path / "state"),
               PATH=f"{bin_dir()}:{os.environ['PATH']}")
    for name in ("LOCUS_PUB", "LOCUS_SUB"):
        env.pop(name, None)
    return env


def wait_for_line(path, pattern, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and re.search(pattern, path.read_text(), re.M):
            return
        time.sleep(0.05)
    raise AssertionError(f"{pattern!r} never appeared in {path}:\n{path.read_text() if path.exists() else ''}")


def untrue_lines(text):
    return [line for line in text.splitlines() if re.search(r": (warn|error): |restarting in", line)]


def test_the_readme_quick_start_prints_nothing_that_is_not_true(tmp_path):
    env = fresh_environment(tmp_path)
    commands = readme_commands()
    assert commands[0] == "locus up &", commands
    logs = []
    background = []
    try:
        for number, command in enumerate(commands):
            argv = shlex.split(command.rstrip("&").strip())
            if argv[:2] == ["locus", "bench"]:
                continue  # minutes of benchmarks: `locus bench` is tested on its own
            err = tmp_path / f"{number}-{argv[1]}.err"
            out = tmp_path / f"{number}-{argv[1]}.out"
            logs.append((command, err))
            if command.endswith("&") or argv[:2] == ["locus", "tail"]:
                process = subprocess.Popen(argv, env=env, stdout=open(out, "w"), stderr=open(err, "w"), cwd=tmp_path)
                background.append(process)
                if argv[:2] == ["locus", "up"]:
                    wait_for_line(err, r"locus up: info: running ", 20)
                    # Every service has said it started (connected and subscribed).
                    for service in ("fusion", "geofence", "motion", "notifier"):
                        wait_for_line(err, rf"^locus-{service}: info: started", 20)
                if argv[:2] == ["locus", "tail"]:
                    tail_out = out  # a fix published before tail subscribes still reaches it: the bus replays the last one
            else:
                done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
                err.write_text(done.stderr)
                assert done.returncode == 0, f"{command} exited {done.returncode}: {done.stderr}"
        # What the README promises: the published fix comes back fused.
        wait_for_line(tail_out, r"^location\.fused\.me ", 15)
        doctor = subprocess.run(["locus", "doctor"], env=env, capture_output=True, text=True, timeout=60)
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        for service in ("bus", "fusion", "geofence", "motion", "notifier"):
            assert re.search(rf"^ok: {service}: ok ", doctor.stdout, re.M), doctor.stdout
        # A few seconds of the running stack: no late warning either.
        time.sleep(3)
    finally:
        for process in reversed(background):
            process.send_signal(signal.SIGINT)
        for process in background:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
    problems = {command: untrue_lines(err.read_text()) for command, err in logs}
    assert not any(problems.values()), json.dumps(problems, indent=1)
    up_log = logs[0][1].read_text()
    assert "notifications go to" in up_log, up_log
    assert re.search(r"stopped locus-bus \(status 0\)", up_log), up_log


def test_locus_up_leaves_a_misconfigured_service_down_and_says_why(tmp_path):
    env = fresh_environment(tmp_path)
    config = tmp_path / "config"
    config.mkdir()
    (config / "notifier.json").write_text("{}")  # no sink: locus-notifier refuses to start (exit 64)
    (config / "motion.json").write_text('{"no-such-option": 1}')  # a bad config file (exit 78)
    err = tmp_path / "up.err"
    up = subprocess.Popen([str(bin_dir() / "locus"), "up", "--config-dir", str(config), "--healthy-after", "0"],
                          env=env, stderr=open(err, "w"), stdout=subprocess.DEVNULL)
    try:
        wait_for_line(err, r"locus-notifier exited with status 64 \(bad arguments\): not restarting it", 20)
        wait_for_line(err, r"locus-motion exited with status 78 \(bad configuration\): not restarting it", 20)
        # The others keep running: fusion answers on the bus, and nothing was started twice.
        wait_for_line(err, r"^locus-fusion: info: started", 20)
        started_at = time.monotonic()
        while time.monotonic() - started_at < 3:  # longer than the first restart back-off (0.5 s)
            assert up.poll() is None, err.read_text()
            time.sleep(0.1)
        log = err.read_text()
        assert len(re.findall(r"started locus-notifier \(pid", log)) == 1, log
        assert len(re.findall(r"started locus-motion \(pid", log)) == 1, log
        assert "restarting in" not in log, log
    finally:
        up.send_signal(signal.SIGINT)
        up.wait(timeout=20)


def test_a_service_that_crashes_is_still_restarted(tmp_path):
    env = fresh_environment(tmp_path)
    err = tmp_path / "up.err"
    up = subprocess.Popen([str(bin_dir() / "locus"), "up", "--only", "bus,fusion"], env=env, stderr=open(err, "w"),
                          stdout=subprocess.DEVNULL)
    try:
        wait_for_line(err, r"started locus-fusion \(pid (\d+)\)", 20)
        pid = int(re.search(r"started locus-fusion \(pid (\d+)\)", err.read_text()).group(1))
        wait_for_line(err, r"^locus-fusion: info: started", 20)
        os.kill(pid, signal.SIGKILL)
        wait_for_line(err, r"locus-fusion exited \(status 9\) after [\d.]+ s; restarting in", 20)
        wait_for_line(err, r"started locus-fusion \(pid (?!%d\))\d+\)" % pid, 20)
    finally:
        up.send_signal(signal.SIGINT)
        up.wait(timeout=20)


def test_the_default_stack_remembers_a_device_across_a_restart(tmp_path):
    """`locus up` with no config gives fusion a state directory: the last known location comes back
    (as `source: cache`) after the stack restarts, and the reduced-accuracy grid keeps its secret."""
    env = fresh_environment(tmp_path)
    fusion_state = tmp_path / "state" / "locus" / "fusion"

    @contextlib.contextmanager
    def running_stack(number):
        """`locus up` with bus and fusion; yields its log once fusion has started, stops it after."""
        err = tmp_path / f"up{number}.err"
        up = subprocess.Popen([str(bin_dir() / "locus"), "up", "--only", "bus,fusion"], env=env,
                              stderr=open(err, "w"), stdout=subprocess.DEVNULL)
        try:
            wait_for_line(err, r"^locus-fusion: info: started", 20)
            yield err
        finally:
            up.send_signal(signal.SIGINT)
            up.wait(timeout=20)

    def tail_until(out, topics, *patterns):
        """`locus tail TOPICS` into `out` until every pattern has been printed."""
        tail = subprocess.Popen(["locus", "tail", *topics], env=env, stdout=open(out, "w"), stderr=subprocess.DEVNULL)
        try:
            for pattern in patterns:
                wait_for_line(out, pattern, 15)
        finally:
            tail.terminate()
            tail.wait(timeout=10)

    with running_stack(1) as err:
        assert f"last known locations and the approx secret are kept in {tmp_path / 'state' / 'locus'}/fusion" \
            in err.read_text(), err.read_text()
        assert "secret that lasts until exit" not in err.read_text()
        subprocess.run(["locus", "pub", "location.raw.me", '{"type":"location","device":"me","source":"manual",'
                        '"lat":31.2304,"lon":121.4737,"hacc":20}'], env=env, check=True, timeout=30)
        tail_until(tmp_path / "tail1.out", ["location.approx.me"], r"^location\.approx\.me ")
    secret = (fusion_state / "approx.secret").read_bytes()
    first_approx = json.loads((tmp_path / "tail1.out").read_text().splitlines()[0].split(" ", 1)[1])

    with running_stack(2):
        tail_out = tmp_path / "tail2.out"
        tail_until(tail_out, ["location.fused.me", "location.approx.me"], r'^location\.fused\.me .*"source":"cache"',
                   r"^location\.approx\.me ")
    assert (fusion_state / "approx.secret").read_bytes() == secret
    approx = [json.loads(line.split(" ", 1)[1]) for line in tail_out.read_text().splitlines()
              if line.startswith("location.approx.me ")]
    assert (approx[0]["lat"], approx[0]["lon"]) == (first_approx["lat"], first_approx["lon"]), (approx, first_approx)
