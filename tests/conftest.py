"""Test-wide setup: Qt runs offscreen, and nothing touches the user's real keyring."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator

import pytest

from desktop.sync import crypto
from desktop.ui.collector import collect_due

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
#: As in the window (desktop.ui.collector): the cyclic collector runs on the main thread
#: only, between tests; run by a worker thread it destroyed Qt objects there, and their
#: timers fired on freed memory (a segfault in a later test's processEvents).
_THRESHOLD = (gc.get_threshold()[0], gc.get_threshold()[1], gc.get_threshold()[2])
gc.disable()
#: The sync key's production Argon2id cost (about a quarter of a CPU-second per key);
#: tests/sync/test_key_cost.py proves a target set up with it.
PRODUCTION_KEY_COST = {"TIME_COST": crypto.TIME_COST, "MEMORY_KIB": crypto.MEMORY_KIB}


@pytest.fixture(autouse=True)
def cheap_key_derivation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Argon2id at its smallest cost in this process: sync targets set up by the tests
    derive keys in microseconds (the cost is stored in the key file, so every reader
    uses it too; commands run as child processes keep the production cost)."""
    monkeypatch.setattr(crypto, "TIME_COST", 1)
    monkeypatch.setattr(crypto, "MEMORY_KIB", 8)


_looked_at: dict[str, bool] = {}


def pytest_runtest_setup(item: pytest.Item) -> None:
    """At the first test of this process from a file that speaks of MCP, the warm copies
    of the test MCP servers start (tests/tools/mcp_warm.py): each server the tests start
    then runs as a fork of one instead of importing the MCP SDK again (a run of other
    files starts none). ``ASSISTA_TEST_FRESH_MCP=1``: none."""
    from tests.tools.mcp_warm import STARTED, start_copies

    if STARTED or os.environ.get("ASSISTA_TEST_FRESH_MCP") == "1":
        return
    path = str(item.path)
    if path not in _looked_at:
        try:
            _looked_at[path] = "mcp" in item.path.read_text(encoding="utf-8").lower()
        except OSError:
            _looked_at[path] = False
    if _looked_at[path]:
        STARTED.extend(start_copies())


def pytest_sessionfinish(session: pytest.Session) -> None:
    from tests.tools.mcp_warm import STARTED, stop_copy

    while STARTED:
        stop_copy(STARTED.pop())


def pytest_runtest_logstart(nodeid: str, location: tuple[str, int | None, str]) -> None:
    """With ``ASSISTA_TEST_TRAIL`` set (``packaging/dev.py test`` sets it), the test
    under way is written there: when a crash kills the run (a segfault prints only
    stacks), the runner says which test it was."""
    trail = os.environ.get("ASSISTA_TEST_TRAIL")
    if trail:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "")
        with open(f"{trail}{'.' + worker if worker else ''}", "w", encoding="utf-8") as out:
            out.write(nodeid + "\n")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Widgets a test closed (pytest-qt's ``qtbot.addWidget``) are deleted before the next
    test starts: Qt deletes them only when an event loop returns, so without this they
    pile up across the session and every later test that walks the application's
    widgets (a theme change, a font zoom) pays for all of them."""
    result = yield
    collect_due(_THRESHOLD)
    if "PySide6.QtWidgets" in sys.modules:
        from PySide6.QtCore import QCoreApplication, QEvent

        if QCoreApplication.instance() is not None:
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return result
