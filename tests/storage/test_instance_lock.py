"""One running instance per data folder (the cross-process case is in test_kill.py)."""

from __future__ import annotations

import os

from desktop.storage.instance_lock import acquire_instance_lock, running_pid
from desktop.storage.paths import DataPaths


def test_second_acquire_fails_until_release(paths: DataPaths) -> None:
    first = acquire_instance_lock(paths)
    assert first is not None and first.held and not first.previous_unclean
    assert running_pid(paths) == os.getpid()
    assert acquire_instance_lock(paths) is None  # flock conflicts even in one process
    first.release()
    first.release()  # idempotent
    assert not first.held and running_pid(paths) is None
    with acquire_instance_lock(paths) as again:  # type: ignore[union-attr]
        assert again.held and not again.previous_unclean


def test_a_left_marker_means_the_last_run_crashed(paths: DataPaths) -> None:
    (paths.root / "assista.running").write_text("12345\n")  # what a killed run leaves
    lock = acquire_instance_lock(paths)
    assert lock is not None and lock.previous_unclean
    lock.release()
