"""Test-wide setup: Qt runs offscreen, and nothing touches the user's real keyring."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

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
