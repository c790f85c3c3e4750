"""Storage faults seen on a real bus (storage_scenario.py): the state directory of the bus,
the geofence and the notifier fills up for a while, or is removed, mid-run. Health shows
`degraded` naming the fault during the episode and `ok` after; nothing acknowledged is lost,
every event is delivered once in order, and the bus's replay ring resumes (a bus killed after
the episode replays every event from its log). Needs root (tmpfs); skips with the reason
otherwise."""
import os
import shutil

from storage_scenario import run_episode
from storage_support import fill, small_fs  # noqa: F401


def test_a_full_disk_holds_work_back_and_health_shows_it(small_fs, runtime_dir, tmp_path):
    filler = []
    run_episode(runtime_dir, small_fs, tmp_path, begin=lambda: filler.append(fill(small_fs)),
                end=lambda: os.unlink(filler[0]), fault="disk full")


def test_a_state_directory_removed_while_running_is_put_back(runtime_dir, tmp_path):
    state = tmp_path / "state"
    state.mkdir()

    def remove():
        for name in ("bus", "g", "nt"):
            shutil.rmtree(state / name)

    run_episode(runtime_dir, state, tmp_path, begin=remove, end=lambda: None, fault="directory gone", health_shows=False)
