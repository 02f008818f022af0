"""The window's entry point (`assista` without a command; the command line's is
:mod:`desktop.cli`): Qt application, qasync loop, app context, first-run flow.

The window is on screen before the app has loaded. In order:

1. Qt, the data folder's lock and the little the window needs to look right (theme,
   size, pane widths: :func:`read_window_state`), then the window is shown with a
   skeleton of its layout and its first frame is painted;
2. the skeleton lists the newest chats (one query with plain ``sqlite3``) and its
   message box takes typing: the window is filled in for the user;
3. then what a turn needs is imported and opened (the database with its checks,
   settings, the agent loop, the chat service: ``TURN_STEPS``); the qasync loop starts
   running, and on it a question typed meanwhile (Enter pressed) is sent at once
   (:mod:`desktop.ui.window.early_question`); then the window's content is imported
   (``WINDOW_STEPS``) and :meth:`MainWindow.attach` builds it in steps with the
   window's events (and the answer's) handled between them; the chat view then shows
   the chat with its answer so far, and what was typed since goes on in the composer;
4. the loop runs the app until it quits, then stops the chats' answers (what they
   wrote is saved) on the loop too (:mod:`desktop.ui.window.app_loop`).

Only Qt and a few light modules are imported at the top of this module.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

import desktop.ui.pyside_import_hook  # (before the other modules)
from desktop import APP_ID, APP_NAME
from desktop.resources import icon_path
from desktop.storage.first_chats import read_first_chats
from desktop.storage.instance_lock import InstanceLock, acquire_instance_lock
from desktop.storage.integrity_check import IntegrityCheck
from desktop.storage.paths import DataPaths
from desktop.storage.window_state import read_window_state
from desktop.ui import i18n, theme
from desktop.ui.window.main_window import MainWindow
from desktop.ui.window.qt_start import new_application
from desktop.ui.window.screen_fit import fit_to_screen
from desktop.ui.window.startup_trace import StartupTrace, startup_trace

from .load_steps import WINDOW_STEPS, import_steps, load_modules

if TYPE_CHECKING:
    from desktop.app import AppContext
    from desktop.ui.window.controller import ChatController

log = logging.getLogger(__name__)

FIRST_FRAME_TIMEOUT_MS = 1000  # never wait longer than this for the first paint
SAVE_SCANS_AFTER_MS = 10_000  # (once the start-up work is over)

def make_application() -> QApplication:
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        app = existing
    else:
        style = theme.native_style_name()
        app = new_application(style)
        app.setProperty(theme.STYLE_PROPERTY, style)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setDesktopFileName(APP_ID)
    i18n.install_translations(app)  # the system's language until the settings are read
    icon = icon_path()
    if icon is not None:
        app.setWindowIcon(QIcon(str(icon)))
    return app


async def first_run(window: MainWindow) -> None:
    """With no provider at all, look for a local LM Studio, then open the dialog."""
    providers = window.controller.services.providers
    if providers.all():
        return
    detected = await providers.detect_local()
    if detected:
        window.top_bar.refresh_providers()
        names = QCoreApplication.translate("Launch", " and ").join(
            config.name for config in detected)
        window.statusBar().showMessage(QCoreApplication.translate(
            "Launch", "Found {servers} running on this computer").format(servers=names), 8000)
    # Not from inside this task: a dialog must not run while a task step is executing.
    QTimer.singleShot(0, lambda: window.dialogs.open("providers"))


def claim_data_folder(data_dir: str | None, smoke: bool,
                      command: str = "activate") -> tuple[DataPaths, InstanceLock | None]:
    """The data folder and its lock; raises SystemExit(code) when another window has
    it (that window is brought forward, or does ``command``, instead) or it cannot be
    used at all."""
    try:
        paths = DataPaths.resolve(data_dir)
        lock = acquire_instance_lock(paths)
    except Exception as exc:
        from PySide6.QtWidgets import QMessageBox  # (its type: ~3 ms, not before the window)

        from desktop.ui.error_text import exception_text  # (pydantic: not before the frame)

        QMessageBox.critical(None, APP_NAME, QCoreApplication.translate(
            "Launch", "{app} could not open its data folder:\n\n{error}").format(
            app=APP_NAME, error=exception_text(exc)))
        raise SystemExit(1) from exc
    if lock is None and not smoke:
        from desktop.ui.window.single_instance import activate_running_instance

        if activate_running_instance(paths.root, command=command):
            print(f"{APP_NAME} is already running; its window was brought forward.")
            raise SystemExit(0)
        from PySide6.QtWidgets import QMessageBox  # (its type: ~3 ms, not before the window)

        QMessageBox.warning(None, APP_NAME, QCoreApplication.translate(
            "Launch", "{app} is already running with the data in {folder}. Close it first, "
            "or start with --data-dir.").format(app=APP_NAME, folder=paths.root))
        raise SystemExit(1)
    return paths, lock


def show_first_frame(window: MainWindow) -> None:
    """Show ``window`` (no bigger than the screen) and return once its first frame has
    been painted."""
    fit_to_screen(window)
    waiting = QEventLoop()
    window.after_first_paint(waiting.quit)
    QTimer.singleShot(FIRST_FRAME_TIMEOUT_MS, waiting.quit)
    window.show()
    waiting.exec()


def collect_and_freeze() -> None:
    """Collect what was made since the last freeze, then leave what is alive (the
    window) out of every later pass: each pass scans only what is new, a few
    milliseconds instead of one pass over everything (~40 ms here)."""
    gc.collect()
    gc.freeze()


def open_context(window: MainWindow, paths: DataPaths, lock: InstanceLock | None,
                 verify: bool | None = None,
                 stale_leaves: list[tuple[str, str | None]] | None = None,
                 ) -> AppContext | None:
    from desktop.app import AppContext
    from desktop.core.errors import AssistaError

    try:
        return AppContext.open(paths.root, lock=lock, verify=verify,
                               stale_leaves=stale_leaves)
    except AssistaError as exc:
        if lock is not None:
            lock.release()
        from PySide6.QtWidgets import QMessageBox  # (its type: ~3 ms, not before the window)

        from desktop.ui.error_text import exception_text  # (pydantic: not before the frame)

        QMessageBox.critical(window, APP_NAME, QCoreApplication.translate(
            "Launch", "{app} could not open its data:\n\n{error}").format(
            app=APP_NAME, error=exception_text(exc)))
        return None


def launch_gui(data_dir: str | None = None, *, smoke: bool = False,
               quick: str | None = None) -> int:
    """``quick``: open the quick-ask window too ("none", "selection", "clipboard": what
    goes into its question), in the running instance if there is one."""
    # No automatic cyclic collection while the app loads: its full passes over
    # everything loaded so far (20-40 ms each here, several of them, one even in the
    # highlighters' warm-up thread) landed in whichever step was running. Instead a
    # freeze once loaded (load_modules), and the collector is back on
    # once the window is built.
    gc.disable()
    try:
        return _launch_gui(data_dir, smoke=smoke, quick=quick)
    finally:
        gc.enable()


def _launch_gui(data_dir: str | None, *, smoke: bool, quick: str | None) -> int:
    app = make_application()
    try:
        paths, lock = claim_data_folder(data_dir, smoke,
                                        "activate" if quick is None else f"quick {quick}")
    except SystemExit as exit_:
        return int(exit_.code or 0)
    state = read_window_state(paths.db_path)
    i18n.install_translations(app, state.language)  # before any widget is made
    theme.apply_theme(app, state.theme, quick=True)
    theme.set_zoom(state.zoom)
    window = MainWindow(state=state)
    trace = startup_trace() if quick is None else None  # (ASSISTA_STARTUP_TRACE)
    if quick is None:
        show_first_frame(window)
        if trace is not None:
            trace.shown()
            trace.step("first chats")
        window.show_first_chats(read_first_chats(paths.db_path))
        app.processEvents()  # a frame with them
    # (``assista quick``: only the quick-ask window shows; the main window stays hidden
    # until "Open in the main window" or the tray brings it)
    check = IntegrityCheck(paths.db_path, after_unclean_exit=lock is not None
                           and lock.previous_unclean)
    if lock is not None:  # (only the process that owns the folder checks and repairs)
        check.start()
    load_modules(app, trace)
    if trace is not None:
        trace.step("integrity check")
    while not check.wait(0.005):  # (usually over by now)
        app.processEvents()
    if trace is not None:
        trace.step("open data")
    ctx = open_context(window, paths, lock, check.verify(), check.stale_leaves())
    if ctx is None:
        return 1
    app.processEvents()  # keep the window responsive between the loading steps
    return run_window(app, window, ctx, smoke, quick, trace=trace)


def run_window(app: QApplication, window: MainWindow, ctx: AppContext, smoke: bool,
               quick: str | None = None, *, trace: StartupTrace | None = None) -> int:
    """Fill the window in and run the app, on the asyncio loop from the start (see
    :mod:`desktop.ui.window.app_loop`): a question sent at any moment is answered."""
    from desktop import __version__
    from desktop.ui.window.app_loop import run_app

    app.setApplicationVersion(__version__)
    theme.settle(app, ctx.settings.current.theme)
    theme.set_base_font_size(ctx.settings.current.base_font_pt or None)
    closing: list[Callable[[], None]] = []  # (after the loop, before the data is closed)
    try:
        run_app(app, lambda: start_window(app, window, ctx, smoke=smoke, quick=quick,
                                          closing=closing, trace=trace),
                lambda controller: controller.shutdown(),
                on_signal=lambda: quit_now(window))
    finally:
        for close in reversed(closing):
            close()
        ctx.close()
    return 0


def start_window(app: QApplication, window: MainWindow, ctx: AppContext, *, smoke: bool,
                 quick: str | None, closing: list[Callable[[], None]],
                 trace: StartupTrace | None = None) -> ChatController:
    """Build the window's content and start its work (run on the running loop)."""
    import asyncio

    from desktop import __version__
    from desktop.chat.service import ChatService
    from desktop.ui.window.controller import ChatController
    from desktop.ui.window.settings_signal import follow_settings
    from desktop.ui.window.single_instance import InstanceServer

    # The window's chat service has the model title new chats (Preferences can say no).
    if trace is not None:
        trace.step("chat service")
    controller = ChatController(ctx, service=ChatService(ctx, write_titles=True))
    closing.append(follow_settings(app, controller).close)
    fill_in(app, window, controller, trace)
    collect_and_freeze()
    # From here on the cyclic collector runs on this thread only (see its module): run
    # on a worker thread it destroyed Qt objects there, and their timers fired on
    # freed memory.
    from desktop.ui.collector import MainThreadCollector

    closing.append(MainThreadCollector(app).stop)
    window.chat.warm_up_soon()  # (the highlighters, on their thread, now that it can)
    # PySide6's answers for the modules loaded, kept for the next start (also if this
    # process is killed later)
    scans = desktop.ui.pyside_import_hook.CACHE
    closing.append(scans.save)
    QTimer.singleShot(SAVE_SCANS_AFTER_MS, scans.save)
    closing.append(InstanceServer(ctx.paths.root, window.bring_to_front,
                                  on_command=window.quick.command).close)
    if quick is not None:
        window.quick.standalone = not window.isVisible()
        QTimer.singleShot(0, lambda: window.quick.open(quick))
        QTimer.singleShot(0, window.run_start_work)  # no first frame of its own to wait for
    if ctx.notice:
        QTimer.singleShot(0, lambda: window.show_error(ctx.notice or ""))
    app.lastWindowClosed.connect(app.quit)
    if smoke:
        def finish() -> None:
            print(f"smoke ok: {APP_NAME} {__version__}, "
                  f"{len(ctx.sessions.list_sessions())} session(s), data in {ctx.paths.root}")
            app.quit()

        QTimer.singleShot(300, finish)
    else:
        QTimer.singleShot(200, lambda: asyncio.ensure_future(first_run(window)))
    if not window.isVisible() and quick is None:  # closed while it was loading
        QTimer.singleShot(0, app.quit)
    return controller


def fill_in(app: QApplication, window: MainWindow, controller: ChatController,
            trace: StartupTrace | None = None) -> None:
    """A question typed meanwhile is sent; then the window's content is imported and
    built in steps, with the window's events (and the answer's) handled between them."""
    from desktop.ui.window.early_question import EarlyQuestion, reopen_last_chat

    if trace is not None:
        trace.step("early question")
    EarlyQuestion(window, controller).start()
    import_steps(app, WINDOW_STEPS, trace)
    between_steps: Callable[[], object] = app.processEvents
    if trace is not None:
        def between_steps() -> None:
            app.processEvents()
            if trace is not None:
                trace.step(f"window: {window.building}")
    window.attach(controller, between_steps=between_steps, hold_sends=True)
    if trace is not None:
        trace.step("reopen last chat")
    reopen_last_chat(window)
    app.processEvents()
    if trace is not None:
        trace.loaded()


def quit_now(window: MainWindow) -> None:
    """Quit without asking (SIGTERM, the session ending): answers are stopped, what
    they wrote so far is kept, marked stopped."""
    if window.ready:
        window.quit_guard.allow()
        window.tray.quitting = True
    window.close()  # (while it loads: what was typed is kept as the chat's draft)
    QCoreApplication.quit()
