"""A newer version is offered in the status bar: "Version 1.3.0 is available" opens a
small dialog with its notes (plain text, as the feed wrote them) and the download
link for this system. The check itself (:mod:`desktop.updates.checker`, loaded then)
runs after the window is up and then every few hours, reading the feed at most once
a day."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from desktop.ui.window.main_window import MainWindow
    from desktop.updates.checker import CheckResult, UpdateChecker
    from desktop.updates.feed import Release

log = logging.getLogger(__name__)
RECHECK_MS = 3 * 3600 * 1000  # how often to ask whether a check is due


class UpdateDialog(QDialog):
    def __init__(self, release: Release, current: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.release = release
        self.setWindowTitle(self.tr("Update available"))
        self.resize(520, 420)
        layout = QVBoxLayout(self)
        heading = QLabel(self.tr("Version {new} is available (you have {current}).").format(
            new=str(release.version), current=current))
        heading.setTextFormat(Qt.TextFormat.PlainText)
        heading.setWordWrap(True)
        layout.addWidget(heading)
        title = QLabel(release.title)
        title.setTextFormat(Qt.TextFormat.PlainText)  # from the feed
        title.setWordWrap(True)
        layout.addWidget(title)
        self.notes = QPlainTextEdit(release.notes or self.tr("No release notes."))
        self.notes.setReadOnly(True)
        self.notes.setAccessibleName(self.tr("Release notes"))
        layout.addWidget(self.notes, 1)
        file_text = (self.tr("Download: {file}").format(file=release.asset_name)
                     if release.asset_name else
                     self.tr("No installer for this system in this release: the release "
                             "page lists what there is."))
        file_label = QLabel(file_text)
        file_label.setTextFormat(Qt.TextFormat.PlainText)
        file_label.setWordWrap(True)
        layout.addWidget(file_label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.download_button = QPushButton(self.tr("&Download"))
        self.download_button.setObjectName("primaryButton")
        self.download_button.setEnabled(bool(release.download_url))
        self.download_button.setToolTip(release.download_url)
        self.download_button.clicked.connect(self.download)
        buttons.addButton(self.download_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.page_button = QPushButton(self.tr("Release &page"))
        self.page_button.setEnabled(bool(release.page_url))
        self.page_button.clicked.connect(
            lambda: QDesktopServices.openUrl(QUrl(release.page_url)))
        buttons.addButton(self.page_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def download(self) -> None:
        if self.release.download_url:
            QDesktopServices.openUrl(QUrl(self.release.download_url))
            self.accept()


class UpdateNotice(QObject):
    def __init__(self, window: MainWindow, current: str) -> None:
        super().__init__(window)
        self.window = window
        self.current = current
        self._checker: UpdateChecker | None = None  # (made at the first check)
        self.release: Release | None = None
        self.button = QPushButton()
        self.button.setObjectName("linkButton")
        self.button.hide()
        self.button.clicked.connect(self.open_dialog)
        window.statusBar().addPermanentWidget(self.button)
        self.dialog: UpdateDialog | None = None
        self._task: asyncio.Future[CheckResult | None] | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(RECHECK_MS)
        self._timer.timeout.connect(self.check)
        self._timer.start()

    @property
    def checker(self) -> UpdateChecker:
        """The feed's checker, with its modules loaded at the first check (after the
        window has loaded), not while the window is built."""
        if self._checker is None:
            self._checker = self.window.controller.services.update_checker(self.current)
        return self._checker

    def check(self) -> None:
        """Check in the background if a check is due (the setting, portable mode and
        the once-a-day limit decide)."""
        if (self._task is not None and not self._task.done()) or not self.checker.due():
            return
        try:
            self._task = asyncio.ensure_future(self.checker.run())
        except RuntimeError:
            log.info("no event loop: the update check waits")
            return
        self._task.add_done_callback(self._checked)

    def _checked(self, task: asyncio.Future[CheckResult | None]) -> None:
        if task.cancelled() or task.exception() is not None:
            return
        result = task.result()
        if result is not None and result.release is not None:
            self.offer(result.release)

    def offer(self, release: Release) -> None:
        self.release = release
        self.button.setText(self.tr("Version {version} is available").format(
            version=str(release.version)))
        self.button.setAccessibleName(self.button.text())
        self.button.setToolTip(self.tr("See what is new and download it"))
        self.button.show()

    def open_dialog(self) -> None:
        if self.release is None:
            return
        if self.dialog is None:
            self.dialog = UpdateDialog(self.release, self.current, self.window)
            self.dialog.finished.connect(self._dialog_closed)
        self.dialog.show()
        self.dialog.raise_()

    def _dialog_closed(self, _result: int) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
            self.dialog = None
