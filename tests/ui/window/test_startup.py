"""Start-up: the window is on screen before the app has loaded, then filled in; its
first frame comes before slow work (benchmark: tests/bench/bench_shipped_startup.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QEvent, QObject, Qt

from desktop.app import AppContext
from desktop.core.settings import ProviderConfig
from desktop.storage.window_state import WINDOW_STATE_KEY, read_window_state
from desktop.ui.window.controller import ChatController
from desktop.ui.window.main_window import MainWindow
from desktop.ui.window.window_menus import MENU_TITLES
from tests.support.openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[3]

# Runs ``assista --smoke`` and reports what was loaded when PySide6 was first imported
# and when the window's first frame had been painted, and whether that same window
# was filled in afterwards.
SMOKE_WITH_LOAD_ORDER = """
import json, sys

class _FirstQt:
    seen = None
    def find_spec(self, name, path=None, target=None):
        if name == "PySide6" and _FirstQt.seen is None:
            _FirstQt.seen = sorted(sys.modules)
        return None

frame = {}

class _WrapLaunch:
    # Wraps desktop.gui.show_first_frame when the entry point imports it.
    def find_spec(self, name, path=None, target=None):
        if name != "desktop.gui":
            return None
        sys.meta_path.remove(self)
        from importlib.machinery import PathFinder
        spec = PathFinder.find_spec(name, path)
        run_module = spec.loader.exec_module

        def exec_module(module):
            run_module(module)
            real_show = module.show_first_frame

            def show_first_frame(window):
                real_show(window)
                frame.update(modules=sorted(sys.modules), visible=window.isVisible(),
                             ready=window.ready, window=window)

            module.show_first_frame = show_first_frame
            real_fill = module.MainWindow.show_first_chats

            def show_first_chats(window, chats):
                real_fill(window, chats)
                frame.update(filled=sorted(sys.modules), filled_in=window.filled_in,
                             ready_at_fill=window.ready)

            module.MainWindow.show_first_chats = show_first_chats

        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, _FirstQt())
sys.meta_path.insert(0, _WrapLaunch())
from desktop.__main__ import main
status = main(["--smoke", "--data-dir", sys.argv[1]])
print(json.dumps({"before_qt": _FirstQt.seen, "at_frame": frame["modules"],
                  "at_fill": frame["filled"], "filled_in": frame["filled_in"],
                  "ready_at_fill": frame["ready_at_fill"],
                  "collector_on": __import__("gc").isenabled(),
                  "frozen": __import__("gc").get_freeze_count(),
                  "visible_at_frame": frame["visible"], "ready_at_frame": frame["ready"],
                  "ready_after": frame["window"].ready, "at_end": sorted(sys.modules)}))
sys.exit(status)
"""

#: Not needed to show the window, list the first chats and take typing: loaded after
#: the first frame and the first chats.
LOADED_AFTER_THE_FIRST_FRAME = [
    "pydantic", "desktop.app", "desktop.core.messages", "desktop.storage.sessions",
    "desktop.tools.builtins", "asyncio", "qasync", "markdown_it", "pygments", "httpx",
    "desktop.ui.chat.chat_view", "desktop.ui.window.controller", "importlib.metadata",
    "desktop.ui.conversations.session_list", "desktop.ui.chat.composer", "dataclasses",
]


def run_smoke(data: Path) -> dict[str, Any]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", SMOKE_WITH_LOAD_ORDER, str(data)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "smoke ok" in proc.stdout
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return report


@pytest.fixture(scope="module")
def smoke_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """``assista --smoke`` started twice on one data folder: without a database, then
    with the one the first start made (run once for the tests of this module)."""
    data = tmp_path_factory.mktemp("smoke") / "data"
    return {start: run_smoke(data) for start in ("first start", "second start")}


def test_the_window_shows_before_the_app_loads_and_is_then_filled_in(
        smoke_runs: dict[str, dict[str, Any]]) -> None:
    for data, report in smoke_runs.items():  # without and with a database
        at_frame = set(report["at_frame"])
        assert report["visible_at_frame"] and not report["ready_at_frame"], data
        assert report["ready_after"], data  # the same window, filled in
        # the collector, off while the app loaded, is back on; what was loaded is frozen
        # out of its passes (a pass over everything is tens of milliseconds)
        assert report["collector_on"] and report["frozen"] > 10_000, data
        loaded = [name for name in LOADED_AFTER_THE_FIRST_FRAME if name in at_frame]
        assert loaded == [], (data, loaded)
        # then the chats are listed and the message box takes typing, still before them
        assert report["filled_in"] and not report["ready_at_fill"], data
        loaded = [name for name in LOADED_AFTER_THE_FIRST_FRAME if name in report["at_fill"]]
        assert loaded == [], (data, loaded)
        # What the window needs is imported before Qt (PySide6's import hook reads
        # the source of every module imported after it).
        before_qt = set(report["before_qt"])
        assert {"desktop.storage.window_state", "desktop.storage.instance_lock",
                "sqlite3"} <= before_qt, data
        # and pydantic_core, one import that no load step can split (as a step it was
        # the longest stall of the shown window: 25-65 ms)
        assert "pydantic_core" in before_qt, data
        # (desktop.gui is being loaded when it imports Qt; no widget module yet)
        window_modules = {"desktop.ui.window", "desktop.gui"}
        assert {n for n in before_qt if n.startswith("desktop.ui.")} <= window_modules


#: Loaded when first used, never by starting the app: the sound library (and the NumPy
#: it imports when installed, ~90 modules) at the first recording or reading aloud; the
#: research run's modules when research is first asked for (ChatTools.research_job);
#: what only some questions use, so that a question typed while the window loads is
#: sent without them: the model-written titles (ChatService.titles: once a chat is
#: created or answered), keeping files for undo around a tool call that changes them,
#: reading a fetched HTML page, the Images API of image-generation models.
NOT_LOADED_BY_STARTING = ["miniaudio", "numpy", "desktop.core.audio_io",
                          "desktop.chat.research.start", "desktop.chat.research.run",
                          "desktop.chat.research.gather", "desktop.chat.research.prompts",
                          "desktop.chat.titling",
                          "desktop.chat.title_request", "desktop.tools.checkpoint_guards",
                          "desktop.tools.workspace_snapshot", "desktop.tools.builtins._html",
                          "desktop.providers.images_api"]


def test_starting_the_app_loads_no_sound_library_nor_research_run(
        smoke_runs: dict[str, dict[str, Any]]) -> None:
    for report in smoke_runs.values():
        loaded = set(report["at_end"])
        assert [name for name in NOT_LOADED_BY_STARTING if name in loaded] == []


def test_starting_the_app_loads_no_registered_dialog(
        smoke_runs: dict[str, dict[str, Any]]) -> None:
    """The menus are built from the dialogs' registry: their modules load when opened."""
    from desktop.ui.window.dialog_registry import DIALOGS

    modules = [entry.target.partition(":")[0] for entry in DIALOGS]
    for report in smoke_runs.values():
        loaded = set(report["at_end"])
        assert [name for name in modules if name in loaded] == []


def test_window_state_is_saved_on_close_and_read_before_the_next_start(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    from desktop.ui import theme

    ctx = open_ctx()
    ctx.settings.update(theme="dark")
    window = MainWindow(ChatController(ctx))
    qtbot.addWidget(window)
    window.resize(1100, 500)  # (wide enough for the three panes side by side)
    window.show()
    qtbot.waitExposed(window)
    window.splitter.setSizes([200, 600, 300])
    # Tool activity starts closed; the user opens it, then closes it: a choice kept
    assert not window.sidebar.isVisible()
    qtbot.mouseClick(window.top_bar.sidebar_button, Qt.MouseButton.LeftButton)
    assert window.sidebar.isVisible()
    qtbot.mouseClick(window.top_bar.sidebar_button, Qt.MouseButton.LeftButton)
    assert not window.sidebar.isVisible()
    theme.set_zoom(2)
    size = (window.width(), window.height())
    try:
        window.close()
        state = read_window_state(ctx.paths.db_path)
    finally:
        theme.set_zoom(0)
    assert state.theme == "dark"
    assert state.zoom == 2 and state.sidebar_visible is False
    assert state.splitter[0] == 200 and len(state.splitter) == 3
    assert state.geometry
    # The next window opens at that size, with those panes
    again = MainWindow(state=state)
    qtbot.addWidget(again)
    # (the width may be narrowed to the small offscreen screen; the default is 820 high)
    assert again.height() == size[1] == 500
    assert [a.text() for a in again.menuBar().actions()] == list(MENU_TITLES)
    assert not again.centralWidget().isEnabled()  # the skeleton
    again.attach(ChatController(ctx))
    assert again.ready and not again.top_bar.sidebar_button.isChecked()
    # The real menus took the skeleton's places, in the same order
    menus = again.menuBar().actions()
    assert [a.text() for a in menus] == list(MENU_TITLES)
    assert all(a.isEnabled() and a.menu().actions() for a in menus)
    assert abs(again.splitter.sizes()[0] - 200) <= 20  # (scaled to the unshown window)


def test_a_damaged_window_state_gives_the_defaults(
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    ctx.settings_store.set_value(WINDOW_STATE_KEY, {"geometry": 5, "splitter": ["x", 1, 2],
                                                    "zoom": 400, "sidebar_visible": "no"})
    state = read_window_state(ctx.paths.db_path)
    assert (state.geometry, state.splitter, state.zoom, state.sidebar_visible) == (
        None, [], 0, None)
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    assert read_window_state(junk).theme == "system"
    assert read_window_state(tmp_path / "missing.sqlite3").splitter == []


def add_provider(ctx: AppContext, server: FakeOpenAIServer) -> ProviderConfig:
    config = ProviderConfig(name="Loopback", preset="custom", base_url=server.base_url,
                            model="gpt-test")
    ctx.settings_store.save_provider(config)
    ctx.secrets.set(config.id, "sk-loopback-key-123456")
    ctx.settings.update(active_provider_id=config.id)
    return config


class _FirstPaint(QObject):
    """Records what the window had started when its first frame was painted."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self.window = window
        self.model_task_at_paint: object = "not painted"

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.model_task_at_paint == "not painted":
            self.model_task_at_paint = self.window.top_bar.model_task
        return False


def test_model_list_and_mcp_wait_for_the_first_frame(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    ctx.settings_store.set_value("models:" + ctx.providers.all()[0].id,
                                 [{"id": "gpt-cached"}])
    window = MainWindow(ChatController(ctx))
    qtbot.addWidget(window)
    # Built, not yet shown: the cached list is there, nothing was asked of the server
    assert window.top_bar.models == ["gpt-cached"]
    assert window.top_bar.model_task is None
    assert window.start_work.queued == [window.top_bar.request_models,
                                        window.tool_activity.start_mcp, window.updates.check]
    first_paint = _FirstPaint(window)
    window.installEventFilter(first_paint)
    window.show()
    qtbot.waitUntil(lambda: len(window.top_bar.models) == 2, timeout=10000)
    assert first_paint.model_task_at_paint is None  # the request started after the frame
    assert set(window.top_bar.models) == {"gpt-test", "gpt-other"}
    assert any(r.path.startswith("/v1/models") for r in fake_server.requests)
    # Once painted, a refresh asks the server at once
    assert window.start_work.queued is None
    done = window.top_bar.model_task
    window.top_bar.refresh_providers()
    assert window.top_bar.model_task is not None and window.top_bar.model_task is not done
    window.removeEventFilter(first_paint)


def test_a_skeleton_window_filled_in_later_waits_for_its_next_frame(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    """As the app starts: the skeleton is painted first, then the window is filled in;
    the model list is asked for after a frame of the real content."""
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = MainWindow()
    qtbot.addWidget(window)
    painted: list[bool] = []
    window.after_first_paint(lambda: painted.append(True))
    window.show()
    qtbot.waitUntil(lambda: painted == [True], timeout=5000)
    assert window.start_work.queued is None and not window.ready
    window.attach(ChatController(ctx))
    assert window.ready
    assert window.top_bar.model_task is None  # queued for the next frame, not started in attach
    assert window.start_work.queued == [window.top_bar.request_models,
                                        window.tool_activity.start_mcp, window.updates.check]
    qtbot.waitUntil(lambda: len(window.top_bar.models) == 2, timeout=10000)
    assert any(r.path.startswith("/v1/models") for r in fake_server.requests)


def test_work_queued_before_the_first_frame_runs_once(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    window = MainWindow(ChatController(open_ctx()))
    qtbot.addWidget(window)
    calls: list[str] = []

    def early() -> None:
        calls.append("early")

    window.after_first_paint(early)
    window.after_first_paint(early)  # the same callback is queued once
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
    window.after_first_paint(lambda: calls.append("late"))  # after the frame: at once
    assert calls == ["early", "late"]


class _PaintSpy(QObject):
    def __init__(self, seen: list[bool]) -> None:
        super().__init__()
        self.seen = seen

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.seen.append(True)
        return False


#: Features the window's load steps must not import (each is loaded when first used;
#: the MCP SDK alone held the window ~1.5 s when an import of it moved into a step).
FEATURES_LOADED_ON_FIRST_USE = [
    "mcp", "numpy", "miniaudio", "jsonschema", "desktop.sync.run", "desktop.knowledge.indexer",
    "desktop.skills.catalog", "desktop.documents", "desktop.ui.inspector.panel",
    "desktop.ui.conversations.assistant_gallery", "cryptography",
    "desktop.chat.research.run", "desktop.chat.research.gather",
    "desktop.updates.checker",  # (at the first update check, after the window has loaded)
    "desktop.ui.conversations.import_export", "desktop.storage.chatgpt",  # (File menu)
    "desktop.ui.conversations.search_dialog",  # (Ctrl+K)
]


#: Loaded with the window's content, not before a question typed while the window loads
#: is sent (what the window loads first, ``TURN_STEPS`` and the wire APIs' adapters): an
#: answer's figures and prices (shown once it is there), compare (ChatService.compare:
#: made when a chat is opened in the built window, to find a compare still running in it).
LOADED_AFTER_A_TURN_CAN_RUN = [
    "desktop.chat.answer_figures", "desktop.core.pricing", "desktop.storage.usage_stats",
    "desktop.chat.compare_run", "desktop.chat.compare", *NOT_LOADED_BY_STARTING]


@pytest.fixture(scope="module")
def load_steps_run() -> dict[str, Any]:
    """A fresh interpreter imports the window's load steps one by one: how many modules
    each step added, which of LOADED_AFTER_A_TURN_CAN_RUN were loaded once a turn could
    run (the steps and adapters load_modules imports), and which of
    FEATURES_LOADED_ON_FIRST_USE were loaded at the end."""
    probe = ("import importlib, json, sys\n"
             "from desktop.gui.load_steps import TURN_STEPS, WINDOW_STEPS\n"
             "from desktop.providers.registry import ADAPTERS\n"
             "adapters = [path.partition(':')[0] for path in ADAPTERS]\n"
             "sizes, turn = {}, []\n"
             "for name in [*TURN_STEPS, *adapters, None, *WINDOW_STEPS]:\n"
             "    if name is None:\n"
             f"        turn = [n for n in {LOADED_AFTER_A_TURN_CAN_RUN!r} if n in sys.modules]\n"
             "        continue\n"
             "    before = len(sys.modules)\n"
             "    importlib.import_module(name)\n"
             "    sizes[name] = len(sys.modules) - before\n"
             f"features = [n for n in {FEATURES_LOADED_ON_FIRST_USE!r} if n in sys.modules]\n"
             "print(json.dumps({'sizes': sizes, 'features': features, 'turn': turn}))")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=120).stdout
    report: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return report


def test_the_load_steps_import_no_feature_loaded_on_first_use(
        load_steps_run: dict[str, Any]) -> None:
    assert load_steps_run["features"] == []


def test_what_a_turn_needs_loads_nothing_used_only_after_the_question_is_sent(
        load_steps_run: dict[str, Any]) -> None:
    assert load_steps_run["turn"] == []


#: Load steps that were each one long stall of the window (30-160 ms under load):
#: what they import now loads in steps of its own before them.
SPLIT_STEPS = ["pydantic", "pydantic.main", "httpcore", "desktop.app", "desktop.chat.service"]


def test_the_biggest_imports_load_in_several_steps_of_public_modules(
        load_steps_run: dict[str, Any]) -> None:
    from desktop.gui.load_steps import LOAD_STEPS, PRIVATE_STEPS

    # a dependency's private module may move or vanish in any release: only those that
    # may be missing (PRIVATE_STEPS)
    assert not [name for name in LOAD_STEPS if not name.startswith("desktop.")
                and any(part.startswith("_") for part in name.split("."))
                and name not in PRIVATE_STEPS]
    sizes = load_steps_run["sizes"]
    assert {name: sizes[name] for name in SPLIT_STEPS if sizes[name] > 30} == {}
    # (what cannot be split loads before the window shows)
    assert "pydantic_core" not in LOAD_STEPS


def test_a_private_module_a_release_has_moved_is_left_to_load_when_used(
        qapp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop.gui import load_steps

    monkeypatch.setattr(load_steps, "PRIVATE_STEPS", frozenset({"anyio._backends._moved_away"}))
    load_steps.import_steps(qapp, ("anyio._backends._moved_away",))  # no error: left for later
    with pytest.raises(ImportError):
        load_steps.import_steps(qapp, ("desktop.no_such_module",))


#: What the window had made when its first frame was about to show: whether Qt's ``Qt``
#: namespace (its enums take ~25 ms) and ``QStyle`` (its enums ~20 ms) were made, and the
#: widget style under the app's style sheet.
FIRST_FRAME_PROBE = """
import os, sys
import PySide6.QtCore as core
import PySide6.QtWidgets as widgets
from desktop import gui
from desktop.ui import theme
def shown(window):
    made = [name for module, name in ((core, 'Qt'), (widgets, 'QStyle')) if name in vars(module)]
    widgets.QApplication.instance().setStyleSheet('')  # (the style under it)
    style = widgets.QApplication.style().name().lower()
    print(','.join(made) or '-', style, theme.native_style_name().lower(), flush=True)
    os._exit(0)
gui.show_first_frame = shown
gui.launch_gui()
"""


def first_frame_probe(home: Path, language: str) -> list[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home), LANGUAGE=language,
               LC_ALL=f"{language or 'en'}_{(language or 'us').upper()}.UTF-8",
               ASSISTA_STARTUP_TRACE=str(home / "trace.txt"))  # (as the start-up bench)
    for key in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "LANG"):
        env.pop(key, None)
    out = subprocess.run([sys.executable, "-c", FIRST_FRAME_PROBE], cwd=ROOT, env=env,
                         check=True, capture_output=True, text=True, timeout=120).stdout
    return out.strip().splitlines()[-1].split()


def test_the_window_shows_before_qts_namespace_and_the_styles_enums_are_made(
        tmp_path: Path) -> None:
    """An English start shows its window before making them; the style is named to Qt
    when the application is made (set later through Python it made QStyle's enums), and
    it is the one the theme wants."""
    made, style, wanted = first_frame_probe(tmp_path, "")
    assert made == "-" and style == wanted


def test_a_translated_start_makes_qts_namespace_for_its_text_direction(
        tmp_path: Path) -> None:
    made, _style, _wanted = first_frame_probe(tmp_path, "de")
    assert made == "Qt"
