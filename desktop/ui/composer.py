"""The message box: Enter sends, Shift+Enter adds a line, Esc or Stop cancels."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.messages import ImagePart, Part


class ComposerInput(QPlainTextEdit):
    submitted = Signal()
    cancelled = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            return
        if key == Qt.Key.Key_Escape:
            self.cancelled.emit()
            return
        super().keyPressEvent(event)


class AttachmentChip(QFrame):
    removed = Signal(object)

    def __init__(self, name: str, part: Part, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentChip")
        self.part = part
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 2, 2, 2)
        label = QLabel(("🖼 " if isinstance(part, ImagePart) else "📄 ") + name)
        remove = QToolButton()
        remove.setText("✕")
        remove.setAutoRaise(True)
        remove.setAccessibleName(f"Remove {name}")
        remove.clicked.connect(lambda: self.removed.emit(self))
        row.addWidget(label)
        row.addWidget(remove)


class Composer(QFrame):
    sendRequested = Signal(str, list)  # text, attachment parts
    stopRequested = Signal()
    workspaceRequested = Signal()
    attachRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composerBox")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        self.chips_row = QHBoxLayout()
        self.chips_row.setContentsMargins(0, 0, 0, 0)
        self.chips_row.addStretch(1)
        layout.addLayout(self.chips_row)
        self.chips: list[AttachmentChip] = []
        self.input = ComposerInput()
        self.input.setObjectName("composerInput")
        self.input.setPlaceholderText("Message…  (Enter to send · Shift+Enter for a new line)")
        self.input.setAccessibleName("Message")
        self.input.setFixedHeight(72)
        self.input.setTabChangesFocus(True)
        layout.addWidget(self.input)
        row = QHBoxLayout()
        self.attach_button = QPushButton("📎")
        self.attach_button.setToolTip("Attach images or text files")
        self.attach_button.setAccessibleName("Attach files")
        self.attach_button.clicked.connect(self.attachRequested)
        row.addWidget(self.attach_button)
        self.workspace_button = QPushButton("📁 No workspace")
        self.workspace_button.setToolTip("Choose the folder the file tools may read")
        self.workspace_button.clicked.connect(self.workspaceRequested)
        self.tools_label = QLabel()
        self.tools_label.setObjectName("usageLabel")
        row.addWidget(self.workspace_button)
        row.addWidget(self.tools_label)
        row.addStretch(1)
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("primaryButton")
        self.send_button.setDefault(False)
        self.send_button.clicked.connect(self._on_button)
        row.addWidget(self.send_button)
        layout.addLayout(row)
        self.input.submitted.connect(self._submit)
        self.input.cancelled.connect(self.stopRequested)
        self.input.textChanged.connect(self._update_enabled)
        self._busy = False
        self._update_enabled()

    def _update_enabled(self) -> None:
        self.send_button.setEnabled(
            self._busy or bool(self.input.toPlainText().strip()) or bool(self.chips))

    def _on_button(self) -> None:
        if self._busy:
            self.stopRequested.emit()
        else:
            self._submit()

    def _submit(self) -> None:
        text = self.input.toPlainText()
        if self._busy or not (text.strip() or self.chips):
            return
        self.sendRequested.emit(text, [chip.part for chip in self.chips])

    def clear(self) -> None:
        self.input.clear()
        for chip in list(self.chips):
            self._remove_chip(chip)

    def add_attachment(self, name: str, part: Part) -> None:
        chip = AttachmentChip(name, part)
        chip.removed.connect(self._remove_chip)
        self.chips.append(chip)
        self.chips_row.insertWidget(self.chips_row.count() - 1, chip)
        self._update_enabled()

    def _remove_chip(self, chip: AttachmentChip) -> None:
        if chip in self.chips:
            self.chips.remove(chip)
        chip.setParent(None)
        chip.deleteLater()
        self._update_enabled()

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.send_button.setText("Stop" if busy else "Send")
        self.send_button.setObjectName("stopButton" if busy else "primaryButton")
        self.send_button.style().unpolish(self.send_button)
        self.send_button.style().polish(self.send_button)
        self._update_enabled()

    def set_workspace(self, folder: str | None, tool_names: list[str]) -> None:
        if folder:
            name = folder.rstrip("/\\").split("/")[-1].split("\\")[-1] or folder
            self.workspace_button.setText(f"📁 {name}")
            self.workspace_button.setToolTip(folder)
            self.tools_label.setText(f"tools: {', '.join(tool_names)}" if tool_names else "")
        else:
            self.workspace_button.setText("📁 Choose workspace…")
            self.workspace_button.setToolTip("Choose the folder the file tools may read")
            self.tools_label.setText("tools off (no workspace)")
