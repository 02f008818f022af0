"""A second start on the same data folder brings the first window forward."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from desktop.ui.single_instance import InstanceServer, activate_running_instance


def test_second_start_activates_the_first(qtbot: Any, qapp: QApplication,
                                          tmp_path: Path) -> None:
    calls: list[bool] = []
    server = InstanceServer(tmp_path, lambda: calls.append(True))
    try:
        assert activate_running_instance(tmp_path)
        qtbot.waitUntil(lambda: calls == [True], timeout=5000)
        assert not activate_running_instance(tmp_path / "other")
    finally:
        server.server.close()


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
