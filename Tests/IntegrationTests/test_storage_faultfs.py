"""Storage faults a tmpfs cannot make, on a fault-injecting FUSE filesystem (faultfs.py):
the state directory of the bus, the geofence and the notifier turns read-only, unwritable or
failing with I/O errors for a while, mid-run, with every service's files open in it. The
same promises as for a full disk (storage_scenario.py): health shows `degraded` naming the
fault and `ok` after, nothing acknowledged is lost, every event is delivered once in order,
the bus's replay ring resumes. Needs root, /dev/fuse and fusepy; skips with the reason otherwise."""
import pytest

from faultfs import FaultFS
from storage_scenario import run_episode


@pytest.fixture
def faultfs(tmp_path):
    filesystem = FaultFS(tmp_path / "faultfs")
    yield filesystem
    filesystem.stop()


@pytest.mark.parametrize("mode, fault", [("readonly", "read-only"), ("denied", "permission denied"), ("eio", "I/O error")])
def test_a_failing_state_directory_holds_work_back_and_health_shows_it(faultfs, runtime_dir, tmp_path, mode, fault):
    run_episode(runtime_dir, faultfs.mount, tmp_path, begin=lambda: faultfs.set(mode), end=lambda: faultfs.set("normal"),
                fault=fault)
