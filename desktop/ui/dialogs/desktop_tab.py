"""Preferences → Desktop: the tray, the quick-ask shortcut, looking for updates."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QFormLayout, QLabel, QLineEdit, QSystemTrayIcon, QWidget

from desktop.core.settings import AppSettings
from desktop.updates.feed import DEFAULT_FEED_URL


class DesktopTab(QWidget):
    def __init__(self, portable: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        self.tray_check = QCheckBox(self.tr("Keep running in the tray when the window is closed"))
        self.tray_check.setToolTip(self.tr("Closing the window hides it; the tray icon's menu "
                                           "brings it back, and its Quit quits"))
        if not QSystemTrayIcon.isSystemTrayAvailable():
            self.tray_check.setToolTip(self.tr("This desktop shows no tray icons: closing the "
                                               "window quits, whatever this says"))
        form.addRow(self.tr("Tray"), self.tray_check)
        shortcut = QLabel(self.tr(
            "Quick ask from anywhere: bind the command “assista quick --selection” to a "
            "keyboard shortcut in your desktop's keyboard settings. It opens a small window "
            "over everything with the selected text in the question."))
        shortcut.setObjectName("emptyHint")
        shortcut.setWordWrap(True)
        shortcut.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow(self.tr("Quick ask"), shortcut)
        self.updates_check = QCheckBox(self.tr("Look for a new version once a day"))
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

    def load(self, settings: AppSettings) -> None:
        self.tray_check.setChecked(settings.keep_in_tray)
        self.updates_check.setChecked(settings.check_updates)
        self.feed_edit.setText(settings.update_feed_url)

    def changes(self) -> dict[str, object]:
        return {"keep_in_tray": self.tray_check.isChecked(),
                "check_updates": self.updates_check.isChecked(),
                "update_feed_url": self.feed_edit.text().strip()}

    def problem(self) -> str | None:
        url = self.feed_edit.text().strip()
        if url and not url.lower().startswith(("https://", "http://")):
            return self.tr("The release feed must be an https:// URL.")
        return None
