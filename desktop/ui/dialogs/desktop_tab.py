"""Preferences → Desktop: the tray, the quick-ask shortcut, looking for updates."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QSystemTrayIcon,
    QToolButton,
    QWidget,
)

from desktop.core.settings import AppSettings
from desktop.ui import theme
from desktop.ui.form_rows import whole
from desktop.ui.markdown.accessible import Announcer
from desktop.ui.quick.global_shortcut import GlobalShortcut
from desktop.updates.feed import DEFAULT_FEED_URL


class DesktopTab(QWidget):
    #: The quick-ask shortcut was changed (Qt's portable text, "" for none): saved at
    #: once, so the status below says whether the desktop took it.
    shortcutChosen = Signal(str)

    def __init__(self, portable: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        # (short: a check box cannot wrap; the tooltip says what closing does then)
        self.tray_check = whole(QCheckBox(self.tr("Keep running in the tray")))
        self.tray_check.setToolTip(self.tr("Closing the window hides it; the tray icon's menu "
                                           "brings it back, and its Quit quits"))
        if not QSystemTrayIcon.isSystemTrayAvailable():
            self.tray_check.setToolTip(self.tr("This desktop shows no tray icons: closing the "
                                               "window quits, whatever this says"))
        form.addRow(self.tr("Tray"), self.tray_check)
        self.shortcut_edit = QKeySequenceEdit()
        self.shortcut_edit.setMaximumSequenceLength(1)  # one combination, not a sequence
        self.shortcut_edit.setClearButtonEnabled(True)
        for button in self.shortcut_edit.findChildren(QToolButton):  # (Qt's clear button)
            button.setAccessibleName(self.tr("Clear the quick ask shortcut"))
            button.setToolTip(self.tr("No global shortcut"))
        self.shortcut_edit.setAccessibleName(self.tr("Quick ask shortcut"))
        self.shortcut_edit.setAccessibleDescription(self.tr(
            "Press the key combination that opens the quick-ask window from any "
            "application; it applies at once"))
        self.shortcut_edit.setToolTip(self.tr("Click, then press the combination "
                                              "(Ctrl, Alt or Meta with a key)"))
        self.shortcut_edit.editingFinished.connect(self._shortcut_edited)
        self.shortcut_edit.keySequenceChanged.connect(self._shortcut_cleared)
        form.addRow(self.tr("Quick ask shortcut"), self.shortcut_edit)
        self.shortcut_status = QLabel()
        self.shortcut_status.setObjectName("emptyHint")
        self.shortcut_status.setWordWrap(True)
        self.shortcut_status.setTextFormat(Qt.TextFormat.PlainText)
        # (the row may be laid out taller than its text: keep the text under the editor)
        self.shortcut_status.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.shortcut_status.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)
        self.shortcut_status.setAccessibleName(self.tr("Quick ask shortcut status"))
        form.addRow("", self.shortcut_status)
        self.global_shortcut: GlobalShortcut | None = None
        self.announcer = Announcer()
        self.updates_check = whole(QCheckBox(self.tr("Look for a new version once a day")))
        self.updates_check.setEnabled(not portable)
        form.addRow(self.tr("Updates"), self.updates_check)
        self.feed_edit = QLineEdit()
        self.feed_edit.setAccessibleName(self.tr("Release feed URL"))
        self.feed_edit.setPlaceholderText(DEFAULT_FEED_URL)
        self.feed_edit.setToolTip(self.tr("A feed in GitHub's Releases API format; empty: "
                                          "the project's own releases"))
        self.feed_edit.setEnabled(not portable)
        form.addRow(self.tr("Release feed"), self.feed_edit)
        if portable:
            note = QLabel(self.tr("Portable mode (--data-dir): the app never looks for "
                                  "updates."))
            note.setObjectName("emptyHint")
            note.setWordWrap(True)
            form.addRow("", note)

    def follow(self, shortcut: GlobalShortcut) -> None:
        """Show what ``shortcut`` (the running app's) says about its registration."""
        self.global_shortcut = shortcut
        shortcut.statusChanged.connect(self._status_changed)
        self._show_status()

    def _status_changed(self, _status: str) -> None:
        self._show_status()
        # said to a screen reader too: the answer to the keys just pressed
        self.announcer.announce(self.shortcut_edit, self.shortcut_status.text())

    def _show_status(self, *_args: object) -> None:
        if self.global_shortcut is None:
            return
        self.shortcut_status.setText(self.global_shortcut.message())
        # a combination that did not take is said in the error colour, the rest as a hint
        failed = self.global_shortcut.status in ("taken", "cancelled", "invalid")
        self.shortcut_status.setStyleSheet(
            f"color: {theme.colors()['error']};" if failed else "")

    def shortcut_text(self) -> str:
        return self.shortcut_edit.keySequence().toString(
            QKeySequence.SequenceFormat.PortableText)

    def _shortcut_edited(self) -> None:
        self.shortcutChosen.emit(self.shortcut_text())

    def _shortcut_cleared(self, sequence: QKeySequence) -> None:
        if sequence.isEmpty():  # the clear button: no editingFinished comes
            self.shortcutChosen.emit("")

    def load(self, settings: AppSettings) -> None:
        self.shortcut_edit.blockSignals(True)  # loading is not choosing
        self.shortcut_edit.setKeySequence(QKeySequence.fromString(
            settings.quick_shortcut, QKeySequence.SequenceFormat.PortableText))
        self.shortcut_edit.blockSignals(False)
        self.tray_check.setChecked(settings.keep_in_tray)
        self.updates_check.setChecked(settings.check_updates)
        self.feed_edit.setText(settings.update_feed_url)

    def changes(self) -> dict[str, object]:
        return {"keep_in_tray": self.tray_check.isChecked(),
                "quick_shortcut": self.shortcut_text(),
                "check_updates": self.updates_check.isChecked(),
                "update_feed_url": self.feed_edit.text().strip()}

    def problem(self) -> str | None:
        url = self.feed_edit.text().strip()
        if url and not url.lower().startswith(("https://", "http://")):
            return self.tr("The release feed must be an https:// URL.")
        return None
