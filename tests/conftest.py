"""Test-wide setup: Qt runs offscreen, and nothing touches the user's real keyring."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Widgets a test closed (pytest-qt's ``qtbot.addWidget``) are deleted before the next
    test starts: Qt deletes them only when an event loop returns, so without this they
    pile up across the session and every later test that walks the application's
    widgets (a theme change, a font zoom) pays for all of them."""
    result = yield
    if "PySide6.QtWidgets" in sys.modules:
        from PySide6.QtCore import QCoreApplication, QEvent

        if QCoreApplication.instance() is not None:
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return result



@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """On pytest-xdist workers with ``--dist loadfile`` (packaging/dev.py test): each test
    file runs whole and in order on one worker, and the window's tests (tests/ui) all
    on one worker in the order of a one-process run: a Qt test can depend on what the
    widgets before it left behind (one crashed a worker when the window's files were
    spread over two workers in another order)."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FilesAndTheWindow(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "tests/ui" if path.startswith("tests/ui/") else path

    return FilesAndTheWindow(config, log)
