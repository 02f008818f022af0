"""Fixtures for the window tests: a qasync loop driven by Qt, a private data dir."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import pytest
import qasync
from keyring.backends import fail
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.storage import logs
from desktop.storage.secrets import SecretStore
from desktop.ui import i18n
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


@pytest.fixture
def qt_loop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    """A qasync loop marked as running; Qt event processing (qtbot.wait*) drives it."""
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    yield loop
    for task in asyncio.all_tasks(loop):
        task.cancel()
    qapp.processEvents()
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
