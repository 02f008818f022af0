"""Fixtures for the window tests: a qasync loop driven by Qt, a private data dir."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
import qasync
from keyring.backends import fail
from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.storage import logs
from desktop.storage.secrets import SecretStore
from desktop.ui import i18n
from desktop.ui.window.app_loop import asyncgen_hooks
from tests.support.openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True, scope="session")
def _english_plurals(qapp: QApplication) -> None:
    """The window tests read English as the app shows it: with the plural forms of
    ``assista_en.qm`` ("1 chat"), compiled here if the .ts is newer."""
    subprocess.run([sys.executable, str(ROOT / "packaging" / "translations.py"), "build"],
                   check=True, stdout=subprocess.DEVNULL)
    i18n.install_translations(qapp, "en")


@pytest.fixture(autouse=True)
def _no_real_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(keyring, "get_keyring", fail.Keyring)
    yield
    logs.shutdown_logging()


async def _after(tasks: set[asyncio.Task[Any]], then: Awaitable[None]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)
    await then


@pytest.fixture
def qt_loop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    """A qasync loop marked as running; Qt event processing (qtbot.wait*) drives it."""
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    previous_hooks = asyncgen_hooks(loop)  # (as the app's loop has them while it runs)
    yield loop
    # What the test left running is cancelled and given the loop until it has ended,
    # then the async generators still open are closed on it, as the app does when it
    # quits (an MCP client's streams, left to the collector after the loop had gone,
    # ended in "async generator ignored GeneratorExit")
    tasks = asyncio.all_tasks(loop)
    for task in tasks:
        task.cancel()
    closing = asyncio.ensure_future(_after(tasks, loop.shutdown_asyncgens()), loop=loop)
    give_up = time.monotonic() + 10  # (a task that never ends does not hang the run)
    while not closing.done() and time.monotonic() < give_up:
        qapp.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    sys.set_asyncgen_hooks(*previous_hooks)
    # Not loop.stop(): qasync's stop() calls QApplication.exit(), which would make the
    # next test's nested event loops (qtbot.waitSignal) return at once.
    loop._QEventLoop__is_running = False  # type: ignore[attr-defined]
    asyncio.events._set_running_loop(None)
    qapp.aboutToQuit.disconnect(loop._after_run_forever)
    loop.close()
    asyncio.set_event_loop(None)


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=["gpt-test", "gpt-other"]) as server:
        yield server


@pytest.fixture
def open_ctx(tmp_path: Path) -> Iterator[Callable[..., AppContext]]:
    """Opens AppContexts on one data dir (call again to simulate a restart)."""
    opened: list[AppContext] = []

    def make(environ: dict[str, str] | None = None) -> AppContext:
        ctx = AppContext.open(tmp_path / "data", environ=environ or {}, log_to_stderr=False)
        ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
        opened.append(ctx)
        return ctx

    yield make
    for ctx in opened:
        if not ctx.db.closed:
            ctx.close()
