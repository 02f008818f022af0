"""Start-up: the window's first frame comes before slow work, and the real entry point
loads the Qt-free part of the app before Qt (benchmark: tests/bench/bench_startup.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import QEvent, QObject

from desktop.app import AppContext
from desktop.core.settings import ProviderConfig
from desktop.ui.controller import ChatController
from desktop.ui.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]

# Runs ``assista --smoke``; prints which modules were loaded when PySide6 was first
# imported (PySide6's import hook reads the source of every module imported after it).
SMOKE_WITH_IMPORT_ORDER = """
import json, sys

class _FirstQt:
    seen = None
    def find_spec(self, name, path=None, target=None):
        if name == "PySide6" and _FirstQt.seen is None:
            _FirstQt.seen = sorted(sys.modules)
        return None

sys.meta_path.insert(0, _FirstQt())
from desktop.__main__ import main
status = main(["--smoke", "--data-dir", sys.argv[1]])
print(json.dumps(_FirstQt.seen))
sys.exit(status)
"""


def test_gui_entry_loads_the_app_core_before_qt(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(
        [sys.executable, "-c", SMOKE_WITH_IMPORT_ORDER, str(tmp_path / "data")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "smoke ok" in proc.stdout
    before_qt = set(json.loads(proc.stdout.strip().splitlines()[-1]))
    for name in ("desktop.app", "desktop.core.messages", "pydantic", "asyncio", "sqlite3",
                 "desktop.storage.sessions", "desktop.tools.builtins"):
        assert name in before_qt, name
    # desktop.ui.launch itself is being loaded when it imports Qt; no widget module yet
    assert {n for n in before_qt if n.startswith("desktop.ui")} <= {"desktop.ui",
                                                                     "desktop.ui.launch"}


def add_provider(ctx: AppContext, server: FakeOpenAIServer) -> ProviderConfig:
    config = ProviderConfig(name="Loopback", preset="custom", base_url=server.base_url,
                            model="gpt-test")
    ctx.settings_store.save_provider(config)
    ctx.secrets.set(config.id, "sk-loopback-key-123456")
    ctx.save_settings(ctx.load_settings().model_copy(update={"active_provider_id": config.id}))
    return config


class _FirstPaint(QObject):
    """Records what the window had started when its first frame was painted."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self.window = window
        self.model_task_at_paint: object = "not painted"

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.model_task_at_paint == "not painted":
            self.model_task_at_paint = self.window._model_task
        return False


def test_model_list_and_mcp_wait_for_the_first_frame(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    ctx.settings_store.set_value("models:" + ctx.all_providers()[0].id,
                                 [{"id": "gpt-cached"}])
    window = MainWindow(ChatController(ctx))
    qtbot.addWidget(window)
    # Built, not yet shown: the cached list is there, nothing was asked of the server
    assert [window.model_combo.itemText(i) for i in range(window.model_combo.count())] == [
        "gpt-cached"]
    assert window._model_task is None
    assert window._after_paint == [window._request_models, window._start_mcp]
    first_paint = _FirstPaint(window)
    window.installEventFilter(first_paint)
    window.show()
    qtbot.waitUntil(lambda: window.model_combo.count() == 2, timeout=10000)
    assert first_paint.model_task_at_paint is None  # the request started after the frame
    assert {window.model_combo.itemText(i) for i in range(2)} == {"gpt-test", "gpt-other"}
    assert any(r.path.startswith("/v1/models") for r in fake_server.requests)
    # Once painted, a refresh asks the server at once
    assert window._after_paint is None
    done = window._model_task
    window.refresh_providers()
    assert window._model_task is not None and window._model_task is not done
    window.removeEventFilter(first_paint)


def test_work_queued_before_the_first_frame_runs_once(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    window = MainWindow(ChatController(open_ctx()))
    qtbot.addWidget(window)
    calls: list[str] = []

    def early() -> None:
        calls.append("early")

    window._after_first_paint(early)
    window._after_first_paint(early)  # the same callback is queued once
    assert calls == []
    window.show()
    qtbot.waitUntil(lambda: calls == ["early"], timeout=5000)
    # another paint (synchronous) does not run the queued work again
    painted: list[bool] = []
    spy = _PaintSpy(painted)
    window.installEventFilter(spy)
    window.repaint()
    assert painted
    assert calls == ["early"]
    window._after_first_paint(lambda: calls.append("late"))  # after the frame: at once
    assert calls == ["early", "late"]


class _PaintSpy(QObject):
    def __init__(self, seen: list[bool]) -> None:
        super().__init__()
        self.seen = seen

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.seen.append(True)
        return False
