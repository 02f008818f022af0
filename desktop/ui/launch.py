"""Starts the window: Qt application, qasync loop, app context, first-run flow."""

from __future__ import annotations

import asyncio
import logging
import sys

import qasync
from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop import APP_ID, APP_NAME, __version__
from desktop.app import AppContext
from desktop.core.errors import AssistaError
from desktop.resources import icon_path
from desktop.ui.controller import ChatController
from desktop.ui.main_window import MainWindow
from desktop.ui.single_instance import InstanceServer, activate_running_instance
from desktop.ui.theme import apply_theme

log = logging.getLogger(__name__)


def make_application() -> QApplication:
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setOrganizationName(APP_NAME)
    app.setDesktopFileName(APP_ID)
    icon = icon_path()
    if icon is not None:
        app.setWindowIcon(QIcon(str(icon)))
    return app


async def first_run(window: MainWindow) -> None:
    """With no provider at all, look for a local LM Studio, then open the dialog."""
    ctx = window.controller.ctx
    if ctx.all_providers():
        return
    import httpx  # slow to import: only on a first run

    from desktop.providers.factory import detect_lmstudio, detect_ollama

    async with httpx.AsyncClient() as client:
        found = await asyncio.gather(detect_lmstudio(client), detect_ollama(client, ctx.environ))
    detected = [config for config in found if config is not None]
    if detected:
        ctx.detected.extend(detected)
        window.refresh_providers()
        names = " and ".join(config.name for config in detected)
        window.statusBar().showMessage(f"Found {names} running on this computer", 8000)
    # Not from inside this task: a dialog must not run while a task step is executing.
    QTimer.singleShot(0, window.open_providers)


def launch_gui(data_dir: str | None = None, *, smoke: bool = False) -> int:
    app = make_application()
    try:
        ctx = AppContext.open(data_dir)
    except AssistaError as exc:
        QMessageBox.critical(None, APP_NAME, f"{APP_NAME} could not open its data:\n\n{exc}")
        return 1
    if not ctx.is_primary and not smoke:
        # Another window already has this data folder: bring it forward instead.
        root = ctx.paths.root
        ctx.close()
        if activate_running_instance(root):
            print(f"{APP_NAME} is already running; its window was brought forward.")
            return 0
        QMessageBox.warning(None, APP_NAME, f"{APP_NAME} is already running with the data "
                            f"in {root}. Close it first, or start with --data-dir.")
        return 1
    apply_theme(app, ctx.load_settings().theme)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    controller = ChatController(ctx)
    window = MainWindow(controller)
    window.show()
    instance_server = InstanceServer(ctx.paths.root, window.bring_to_front)
    if ctx.notice:
        QTimer.singleShot(0, lambda: window.show_error(ctx.notice or ""))
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    app.lastWindowClosed.connect(app.quit)
    if smoke:
        def finish() -> None:
            print(f"smoke ok: {APP_NAME} {__version__}, "
                  f"{len(ctx.sessions.list_sessions())} session(s), data in {ctx.paths.root}")
            app.quit()

        QTimer.singleShot(300, finish)
    else:
        QTimer.singleShot(200, lambda: asyncio.ensure_future(first_run(window)))
    try:
        with loop:
            loop.run_until_complete(closed.wait())
            loop.run_until_complete(controller.shutdown())
    finally:
        instance_server.close()
        ctx.close()
    return 0
