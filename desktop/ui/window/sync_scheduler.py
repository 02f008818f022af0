"""Sync in the window: when to run, where it runs, and what the status bar says.

:class:`SyncScheduler` holds one :class:`SyncEngine` (it keeps the key derived from
the passphrase, which is slow to derive on purpose) and runs it in a worker thread —
never on the UI thread, and one run at a time. It runs a few seconds after the chats
or the settings change (debounced: typing a chat's title is one sync, not twenty),
every few minutes (to receive the other devices' changes), and on *Sync now*. A failed
run (offline, server down) is shown; the next one sends what waits.

After a run that merged something the window follows (:meth:`MainWindow._connect_sync`
wires it): settings are re-read, the chat list is refreshed and the chat on screen is
reopened when it changed.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QLabel, QWidget

from desktop import sync as sync_feature
from desktop.core.errors import AssistaError
from desktop.sync.config import SyncConfig
from desktop.sync.status import SyncStatus
from desktop.ui.error_text import exception_text
from desktop.ui.plain_text import plain_tooltip

if TYPE_CHECKING:
    from desktop.sync.run import SyncEngine, SyncReport
    from desktop.sync.service import SyncService

log = logging.getLogger(__name__)

DEBOUNCE_MS = 5_000
PERIOD_MS = 5 * 60_000
LABEL_REFRESH_MS = 30_000  # "Synced 2 min ago" ages
ERROR_CHARS = 90


def one_line(text: str, limit: int = ERROR_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


class SyncTexts(QObject):
    """The status texts with a number in them (plural forms come only from tr())."""

    def days_ago(self, days: int) -> str:
        return self.tr("%n days ago", "", days)

    def waiting(self, changes: int) -> str:
        return self.tr("%n changes waiting", "", changes)


def ago(seconds: float) -> str:
    if seconds < 60:
        return QCoreApplication.translate("SyncScheduler", "just now")
    minutes = int(seconds // 60)
    if minutes < 60:
        return QCoreApplication.translate("SyncScheduler", "{minutes} min ago").format(
            minutes=minutes)
    hours = minutes // 60
    if hours < 48:
        return QCoreApplication.translate("SyncScheduler", "{hours} h ago").format(hours=hours)
    return SyncTexts().days_ago(hours // 24)


def status_text(status: SyncStatus, now: float, *, running: bool = False,
                error: str | None = None) -> str:
    """The status bar's words. ``error``: the window's last run failed (also when it
    failed before the engine could record it: no passphrase, a bad URL)."""
    if running:
        return QCoreApplication.translate("SyncScheduler", "Syncing…")
    failure = error or status.error
    if failure:
        return QCoreApplication.translate("SyncScheduler", "Sync failed: {error}").format(
            error=one_line(failure))
    if status.pending:
        return SyncTexts().waiting(status.pending)
    if status.last_sync_at is None:
        return QCoreApplication.translate("SyncScheduler", "Not synced yet")
    return QCoreApplication.translate("SyncScheduler", "Synced {when}").format(
        when=ago(max(0.0, now - status.last_sync_at)))


class SyncScheduler(QObject):
    started = Signal()
    finished = Signal(object, str)  # SyncReport or None, the error ("" when it worked)
    statusChanged = Signal()  # what the status bar shows may have changed
    _done = Signal(object, object, str)  # from the worker: engine, report, error

    def __init__(self, sync: SyncService, parent: QObject | None = None, *,
                 debounce_ms: int = DEBOUNCE_MS, period_ms: int = PERIOD_MS) -> None:
        super().__init__(parent)
        self.sync = sync
        self.config = SyncConfig()
        self.error: str | None = None  # why this window's last run failed
        self._engine: SyncEngine | None = None
        self._thread: threading.Thread | None = None
        self._again = False  # asked to run while running: run once more after
        self._stale = False  # reconfigured while running: drop that run's engine
        self._debounce = QTimer(self, singleShot=True, interval=debounce_ms)
        self._debounce.timeout.connect(self.sync_now)
        self._period = QTimer(self, interval=period_ms)
        self._period.timeout.connect(self.sync_now)
        # Queued: the worker emits it, the UI thread handles it.
        self._done.connect(self._finish, Qt.ConnectionType.QueuedConnection)
        self.reconfigure()

    def set_timing(self, debounce_ms: int, period_ms: int) -> None:
        """How long after a change it runs, and how often it runs anyway (tests)."""
        self._debounce.setInterval(debounce_ms)
        self._period.setInterval(period_ms)

    @property
    def active(self) -> bool:
        """Configured and switched on: runs on its own."""
        return self.config.enabled and self.config.configured

    @property
    def running(self) -> bool:
        return self._thread is not None

    def reconfigure(self) -> None:
        """Read the saved configuration again (the Sync dialog saved it)."""
        self.config = self.sync.config()
        self.error = None
        if not self.running:
            self._drop_engine()
        else:  # the running one finishes with the old settings; the next uses the new
            self._stale = True
            self._again = self.config.configured
        if self.active:
            self._period.start()
            self.changed()  # the first sync after switching on
        else:
            self._period.stop()
            self._debounce.stop()
        self.statusChanged.emit()

    def changed(self) -> None:
        """Something to send: sync a few seconds from now (restarted by each change)."""
        if self.active:
            self._debounce.start()
            self.statusChanged.emit()

    def sync_now(self) -> bool:
        """Start a run now (or once more after the current one). False when sync is
        not configured."""
        if not self.config.configured:
            return False
        self._debounce.stop()
        if self.running:
            self._again = True
            return True
        engine = self._engine
        thread = threading.Thread(target=self._work, args=(engine,), name="assista-sync",
                                  daemon=True)
        self._thread = thread
        self.started.emit()
        self.statusChanged.emit()
        thread.start()
        return True

    def status(self) -> SyncStatus:
        return self.sync.status()

    def text(self, now: float | None = None) -> str:
        return status_text(self.status(), time.time() if now is None else now,
                           running=self.running, error=self.error)

    def wait(self, timeout_s: float = 30.0) -> None:
        """Let a running sync end (closing the window: the database closes next)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)

    def shutdown(self) -> None:
        self._debounce.stop()
        self._period.stop()
        self.wait()
        self._drop_engine()

    # -- the worker -------------------------------------------------------------------

    def _work(self, engine: SyncEngine | None) -> None:
        report: SyncReport | None = None
        error = ""
        try:
            if engine is None:  # made here: the keyring may take a moment to answer
                engine = self.sync.engine(self.config)
            report = engine.run()
        except sync_feature.SyncBusyError:
            error = "busy"  # `assista sync` has the folder; its outcome is recorded
        except AssistaError as exc:
            error = exception_text(exc) or type(exc).__name__
        except Exception as exc:  # never lose the worker silently
            log.exception("sync run failed")
            error = f"{type(exc).__name__}: {exc}"
        try:
            self._done.emit(engine, report, error)
        except RuntimeError:  # the window (and this object) went away meanwhile
            if engine is not None:
                engine.target.close()

    def _finish(self, engine: SyncEngine | None, report: SyncReport | None,
                error: str) -> None:
        self._thread = None
        again, self._again = self._again, False
        stale, self._stale = self._stale, False
        if engine is not None:
            if stale:  # reconfigured during the run: it has the old target
                engine.target.close()
            else:
                self._engine = engine
        if error != "busy":
            self.error = error or None
        self.finished.emit(report, "" if error == "busy" else error)
        self.statusChanged.emit()
        if again:
            self.sync_now()

    def _drop_engine(self) -> None:
        engine, self._engine = self._engine, None
        if engine is not None:
            engine.target.close()


class SyncStatusLabel(QLabel):
    """The status bar's sync words (right side); a click opens Settings → Sync."""

    clicked = Signal()

    def __init__(self, scheduler: SyncScheduler, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scheduler = scheduler
        self.setTextFormat(Qt.TextFormat.PlainText)  # a server's error text is not markup
        self.setObjectName("syncStatus")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self._timer = QTimer(self, interval=LABEL_REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        scheduler.statusChanged.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        shown = self.scheduler.active
        if shown:
            self.setText(self.scheduler.text())
            status = self.scheduler.status()
            failure = self.scheduler.error or status.error
            self.setToolTip(plain_tooltip(failure) if failure
                            else self.tr("Sync: click for Settings → Sync"))
            self._timer.start()
        else:
            self._timer.stop()
        self.setVisible(shown)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mousePressEvent(event)
