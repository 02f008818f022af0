"""A second start on the same data folder brings the first window forward."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from desktop.ui.window.single_instance import InstanceServer, activate_running_instance


def test_second_start_activates_the_first(qtbot: Any, qapp: QApplication,
                                          tmp_path: Path) -> None:
    import subprocess
    import sys

    calls: list[bool] = []
    server = InstanceServer(tmp_path, lambda: calls.append(True))
    try:
        # the second start runs in another process and waits for the first to answer
        code = ("import sys; from pathlib import Path; "
                "from desktop.ui.window.single_instance import activate_running_instance as a; "
                f"sys.exit(0 if a(Path({str(tmp_path)!r})) else 1)")
        child = subprocess.Popen([sys.executable, "-c", code])
        qtbot.waitUntil(lambda: calls == [True], timeout=10000)
        assert child.wait(timeout=30) == 0
        assert not (tmp_path / "activate.request").exists()
    finally:
        server.close()
    # with no window listening, the request times out and is cleaned up
    assert activate_running_instance(tmp_path, timeout_s=0.2) is False
    assert not (tmp_path / "activate.request").exists()


def test_two_processes_share_one_lock(tmp_path: Path) -> None:
    from desktop.app import AppContext

    first = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    second = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    try:
        assert first.is_primary and not second.is_primary
        info = second.sessions.create_session(title="from the CLI")
        assert first.sessions.get_session(info.id) is not None
    finally:
        second.close()
        first.close()
    third = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    try:
        assert third.is_primary
    finally:
        third.close()
