"""The sliced worker thread: it runs only while the event loop hands out slices, and
never pauses inside an import or holding the import lock."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.ui.sliced_thread import SlicedThread


def _step(progress: list[int]) -> None:  # a Python call: a checkpoint
    progress[0] += 1


def _busy(count: int, progress: list[int]) -> None:
    for _ in range(count):
        _step(progress)


def test_work_runs_to_the_end_in_slices_the_loop_hands_out(qtbot: QtBot) -> None:
    progress = [0]
    worker = SlicedThread(lambda: _busy(300_000, progress), name="test-sliced",
                          slice_ms=0.5, interval_ms=1, max_pause_ms=60_000)
    worker.start()
    # The main thread does not run the loop here, so no second slice comes.
    assert worker.paused.wait(30)
    assert progress[0] < 300_000
    assert not worker.is_finished()
    qtbot.waitUntil(worker.is_finished, timeout=60_000)
    assert progress[0] == 300_000
    assert worker.slices > 1


def test_a_failing_job_is_logged_and_the_worker_ends(qtbot: QtBot,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    def fail() -> None:
        raise ValueError("broken lexer")

    worker = SlicedThread(fail, name="test-failing")
    worker.start()
    qtbot.waitUntil(worker.is_finished)
    assert "broken lexer" in caplog.text


def test_the_worker_does_not_pause_inside_an_import(qtbot: QtBot, tmp_path: Path) -> None:
    # An import that outlasts its slice by far: paused inside it, the worker would keep
    # the module's import lock, and the loop importing it too would wait for a slice
    # that only the loop can hand out.
    (tmp_path / "slow_module_for_slices.py").write_text(
        "def step(n):\n    return n + 1\n\n"
        "total = 0\nfor i in range(300_000):\n    total = step(total)\nDONE = True\n")
    sys.path.insert(0, str(tmp_path))
    progress = [0]

    def work() -> None:
        importlib.import_module("slow_module_for_slices")
        _busy(300_000, progress)

    try:
        worker = SlicedThread(work, name="test-import", slice_ms=0.2, interval_ms=1,
                              max_pause_ms=60_000)
        worker.start()
        pauses = 0
        while not worker.is_finished():
            if worker.paused.wait(0.05):  # the worker waits for the loop's next slice
                pauses += 1
                module = sys.modules.get("slow_module_for_slices")
                assert module is None or getattr(module, "DONE", False)  # not half-run
            QApplication.processEvents()  # hands out the next slice
        assert pauses > 1 and worker.timeouts == 0
        assert sys.modules["slow_module_for_slices"].total == 300_000
        assert progress[0] == 300_000
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("slow_module_for_slices", None)


def test_the_worker_never_pauses_holding_the_global_import_lock(qtbot: QtBot) -> None:
    # The import system holds it briefly around Python code; a worker paused there
    # would stop every import of the loop's thread, unseen, until max_pause_ms.
    import _imp

    progress = [0]
    during: list[int] = []

    def work() -> None:
        _busy(50_000, progress)
        _imp.acquire_lock()
        try:
            before = worker.pauses
            _busy(300_000, progress)  # far longer than a slice
            during.append(worker.pauses - before)
        finally:
            _imp.release_lock()
        _busy(50_000, progress)

    worker = SlicedThread(work, name="test-import-lock", slice_ms=0.2, interval_ms=1,
                          max_pause_ms=60_000)
    worker.start()
    qtbot.waitUntil(worker.is_finished, timeout=60_000)
    assert during == [0]
    assert worker.pauses > 0  # (it does pause outside)
