"""The message box: Enter sends, Shift+Enter adds a line, Esc or Stop cancels, Up in an
empty box edits the last message; it grows with its text (up to a share of the
window); pasted or dropped files and images become attachments."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QLocale, QMimeData, Qt, Signal
from PySide6.QtGui import QAction, QImage, QKeyEvent, QMouseEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.messages import ImagePart, Part
from desktop.ui import icons, theme
from desktop.ui.chat.short_forms import ShortForms
from desktop.ui.plain_text import plain_label
from desktop.ui.tools.tool_names import display_name
from desktop.ui.voice.dictation import MicButton
from desktop.ui.wrap_row import WrapRow


def local_files(mime: QMimeData) -> list[Path]:
    """The local files a paste or drop carries (none for text or web links)."""
    if not mime.hasUrls():
        return []
    return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]


class ComposerInput(QPlainTextEdit):
    submitted = Signal()
    cancelled = Signal()
    editLastRequested = Signal()  # Up in an empty box
    filesPasted = Signal(list)  # list[Path], pasted or dropped
    imagePasted = Signal(QImage)  # an image from the clipboard (a screenshot)

    MIN_LINES = 2

    def fit_height(self, max_height: int) -> None:
        """As tall as the text, from two lines up to ``max_height`` (then it scrolls)."""
        lines = max(self.MIN_LINES, int(self.document().documentLayout().documentSize().height()))
        margins = self.contentsMargins()
        text = lines * self.fontMetrics().lineSpacing() + 2 * self.document().documentMargin()
        height = int(text) + margins.top() + margins.bottom() + 2
        floor = self.MIN_LINES * self.fontMetrics().lineSpacing() + 12
        height = max(floor, min(height, max_height))
        if height != self.height():
            self.setFixedHeight(height)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return bool(local_files(source)) or source.hasImage() or \
            super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        files = local_files(source)
        if files:
            self.filesPasted.emit(files)
        elif source.hasImage():
            self.imagePasted.emit(QImage(source.imageData()))
        else:
            super().insertFromMimeData(source)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key == Qt.Key.Key_Up and not self.toPlainText() and \
                not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            self.editLastRequested.emit()
            return
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


class StickyMenu(QMenu):
    """A menu that stays open while checkable entries are switched (mouse or keyboard)."""

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        action = self.actionAt(event.position().toPoint())
        if action is not None and action.isCheckable() and action.isEnabled():
            action.trigger()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        action = self.activeAction()
        if (event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
                and action is not None and action.isCheckable() and action.isEnabled()):
            action.trigger()
            return
        super().keyPressEvent(event)


def source_title(source: str) -> str:
    if source == "builtin":
        return QCoreApplication.translate("Composer", "Built-in")
    return QCoreApplication.translate("Composer", "MCP: {server}").format(server=source)


class AttachmentChip(QFrame):
    removed = Signal(object)

    def __init__(self, name: str, part: Part, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentChip")
        self.part = part
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 2, 2, 2)
        # (a drawn icon, not an emoji: without an emoji font those are empty boxes)
        kind = QLabel()
        kind.setPixmap(icons.icon("image" if isinstance(part, ImagePart) else "file-text",
                                  "muted").pixmap(14, 14))
        row.addWidget(kind)
        label = plain_label(name)
        remove = QToolButton()
        remove.setText("✕")
        remove.setAutoRaise(True)
        remove.setAccessibleName(self.tr("Remove {name}").format(name=name))
        remove.clicked.connect(lambda: self.removed.emit(self))
        row.addWidget(label)
        row.addWidget(remove)


class Composer(QFrame):
    sendRequested = Signal(str, list)  # text, attachment parts
    stopRequested = Signal()
    workspaceRequested = Signal()
    attachRequested = Signal()
    toolToggled = Signal(str, bool)  # tool name, on for this chat
    toolSettingsRequested = Signal()
    mcpSettingsRequested = Signal()
    compareRequested = Signal()  # Compare, or "/compare" sent: ask several models at once
    tool_actions: dict[str, QAction]
    extra_menus: list[QMenu]  # submenus of the tools menu (the chat's skills)

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
        self.input.setPlaceholderText(
                self.tr("Message…  (Enter to send · Shift+Enter for a new line)"))
        self.input.setAccessibleName(self.tr("Message"))
        self.input.setFixedHeight(56)
        self.input.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.max_input_height = 240  # the pane sets ~40 % of the window
        self.input.setTabChangesFocus(True)
        layout.addWidget(self.input)
        row = WrapRow()  # (too narrow even for the short forms: it wraps, never cuts)
        self.attach_button, self.mic_button = self._attach_and_mic(row)
        self.workspace_button = QPushButton()
        icons.set_icon(self.workspace_button, "folder",
                       self.tr("Choose the folder the file tools may read"),
                               self.tr("Workspace folder"))
        self.workspace_button.clicked.connect(self.workspaceRequested)
        self.tools_button = QToolButton()
        self.tools_button.setObjectName("toolsButton")
        self.tools_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.tools_button.setToolTip(self.tr("Switch tools on or off for this chat"))
        self.tools_button.setAccessibleName(self.tr("Tools for this chat"))
        self.tools_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        theme.notifier().changed.connect(self._restyle_tools_button)
        self._restyle_tools_button()
        self.tools_menu = StickyMenu(self.tools_button)
        self.tools_button.setMenu(self.tools_menu)
        self.tool_actions, self.extra_menus = {}, []
        self._tool_entries: list[tuple[str, str]] = []
        self._has_workspace = False
        self.tools_note: str | None = None
        self._menu_key: tuple[list[tuple[str, str]], str | None, bool] | None = None
        row.addWidget(self.tools_button)
        row.addWidget(self.workspace_button)
        row.add_stretch()
        self.compare_button, self.research_button = self._compare_and_research(row)
        self.send_button = QPushButton(self.tr("Send"))
        self.send_button.setObjectName("primaryButton")
        self.send_button.setDefault(False)
        self.send_button.clicked.connect(self._on_button)
        row.addWidget(self.send_button)
        self.short_forms = self._add_button_row(row, layout)
        self.input.submitted.connect(self._submit)
        self.input.cancelled.connect(self.stopRequested)
        self.input.textChanged.connect(self._update_enabled)
        self.input.textChanged.connect(self.fit_input)
        self._busy = False
        self._held: bool | None = None  # (see hold_sends: None, or whether Enter was hit)
        self._update_enabled()

    def _compare_and_research(self, row: WrapRow) -> tuple[QPushButton, QPushButton]:
        compare = QPushButton()
        icons.set_icon(compare, "columns-3",
                       self.tr("Ask 2 to 4 models at once and see their answers side by side "
                               "(or type /compare)"), self.tr("Compare models"))
        compare.clicked.connect(self.compareRequested)
        row.addWidget(compare)
        research = QPushButton()  # (on: the next question is researched)
        research.setCheckable(True)
        icons.set_icon(research, "scan-search",
                       self.tr("Research: the model plans, searches the web and the chat's "
                               "knowledge bases in rounds, reads pages and answers with a "
                               "report citing them (limits in Settings)"), self.tr("Research"))
        row.addWidget(research)
        return compare, research

    def _attach_and_mic(self, row: WrapRow) -> tuple[QPushButton, MicButton]:
        attach = QPushButton()
        icons.set_icon(attach, "paperclip", self.tr("Attach images, PDF, Word, Excel, "
                                                    "PowerPoint, EPUB or text files"),
                       self.tr("Attach files"))
        attach.clicked.connect(self.attachRequested)
        row.addWidget(attach)
        mic = MicButton()  # shown once the window gives it a transcriber
        row.addWidget(mic)
        return attach, mic

    def _add_button_row(self, row: WrapRow, layout: QVBoxLayout) -> ShortForms:
        """Put the buttons' row under the box. When it is too narrow, Compare, the
        workspace and the tools button (in that order of preference) drop to short
        forms: icons, which their tooltips and accessible names explain; the tools
        button shows the count."""
        layout.addLayout(row)
        forms = ShortForms(row, lambda: self.contentsRect().width()
                           - layout.contentsMargins().left() - layout.contentsMargins().right()
                           if self.isVisible() else 0)
        self.tools_button.setIcon(icons.icon("wrench"))  # (seen in its short form only)
        self._tools_on = -1  # tools switched on (-1: none offered)
        forms.add(self.compare_button, self.tr("Compare"))
        forms.add(self.research_button, self.tr("Research"))
        forms.add(self.workspace_button, self.tr("No workspace"))
        forms.add(self.tools_button, self.tools_button.text(), self._tools_short)
        return forms

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.short_forms.fit()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.short_forms.fit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.short_forms.fit_soon()  # (zoomed: the buttons' text is wider or narrower)

    def _tools_short(self) -> str:
        return (QLocale().toString(self._tools_on) + " ▾") if self._tools_on >= 0 else "▾"

    def fit_input(self) -> None:
        self.input.fit_height(self.max_input_height)

    def set_max_input_height(self, height: int) -> None:
        self.max_input_height = max(56, height)
        self.fit_input()

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
        if self._held is not None:  # kept as it is now, for release_sends
            self._held = True
            self.input.setReadOnly(True)
            return
        if text.split(maxsplit=1)[:1] == ["/compare"]:
            self.compareRequested.emit()  # the rest of the text is the question
            return
        self.sendRequested.emit(text, [chip.part for chip in self.chips])

    def hold_sends(self) -> None:
        """Until :meth:`release_sends`, Enter (or Send) does not send: the text is kept
        as it is, read-only (the window is still opening the chat it goes to)."""
        self._held = False

    def release_sends(self) -> bool:
        """Enter sends again; True if it was pressed while held (the caller sends the
        text, in the chat it has opened)."""
        asked, self._held = self._held is True, None
        self.input.setReadOnly(False)
        return asked

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
        self.send_button.setText(self.tr("Stop") if busy else self.tr("Send"))
        self.compare_button.setEnabled(not busy)
        self.send_button.setObjectName("stopButton" if busy else "primaryButton")
        self.send_button.style().unpolish(self.send_button)
        self.send_button.style().polish(self.send_button)
        self._update_enabled()
        self.short_forms.fit()

    def set_workspace(self, folder: str | None, tool_names: list[str] | None = None) -> None:
        if folder:
            name = folder.rstrip("/\\").split("/")[-1].split("\\")[-1] or folder
            # (a long folder name must not widen the composer: elided)
            self.short_forms.set_text(self.workspace_button,
                                      name if len(name) <= 24 else name[:23] + "…")
            self.workspace_button.setToolTip(folder)
            self.workspace_button.setAccessibleName(
                self.tr("Workspace folder: {name}").format(name=name))
        else:
            self.short_forms.set_text(self.workspace_button, self.tr("Choose workspace…"))
            self.workspace_button.setToolTip(self.tr("Choose the folder the file tools may use"))
            self.workspace_button.setAccessibleName(self.tr("Workspace folder: none"))
        self._has_workspace = bool(folder)
        if tool_names is not None and not self._tool_entries:
            self.set_tools([(n, "builtin") for n in tool_names], set(tool_names))

    # -- the tools menu ---------------------------------------------------------------------

    def set_tools(self, tools: list[tuple[str, str]], enabled: set[str],
                  note: str | None = None) -> None:
        """Offer ``tools`` ((name, source) pairs) in the menu, ``enabled`` ones checked.

        With the menu open and the same tools, only the checks change (so that the
        entry under the mouse stays put)."""
        self.tools_note = note
        on = sum(1 for name, _source in tools if name in enabled)
        label = self.tr("tools: %n on", "", on) if tools else self.tr("tools: none")
        self._tools_on = on if tools else -1
        self.short_forms.set_text(self.tools_button, label + " ▾")
        self.tools_button.setToolTip(note or self.tr("Switch tools on or off for this chat"))
        key = (list(tools), note, self._has_workspace)
        if key == self._menu_key and self.tool_actions:
            for name, action in self.tool_actions.items():
                action.blockSignals(True)
                action.setChecked(name in enabled)
                action.blockSignals(False)
            return
        self._menu_key = key
        self._tool_entries = list(tools)
        menu = self.tools_menu
        menu.clear()
        self.tool_actions.clear()
        if note:
            menu.addAction(note).setEnabled(False)
            menu.addSeparator()
        if not self._has_workspace:
            menu.addAction(
                    self.tr("Choose a workspace folder to use the file tools")).setEnabled(False)
        current = None
        for name, source in tools:
            if source != current:
                current = source
                menu.addSection(source_title(source))
            action = menu.addAction(display_name(name, source))
            action.setCheckable(True)
            action.setChecked(name in enabled)
            action.toggled.connect(lambda checked, n=name: self.toolToggled.emit(n, checked))
            self.tool_actions[name] = action
        if not tools:
            menu.addAction(self.tr("No tools available")).setEnabled(False)
        menu.addSeparator()
        all_on = menu.addAction(self.tr("All on"))
        all_on.triggered.connect(lambda: self._switch_all(True))
        all_off = menu.addAction(self.tr("All off"))
        all_off.triggered.connect(lambda: self._switch_all(False))
        for action in (all_on, all_off):
            action.setEnabled(bool(tools))
        for submenu in self.extra_menus:  # (the chat's skills: desktop.ui.chat.skill_switches)
            menu.addMenu(submenu)
        menu.addSeparator()
        menu.addAction(self.tr("Tool settings…")).triggered.connect(self.toolSettingsRequested)
        menu.addAction(self.tr("MCP servers…")).triggered.connect(self.mcpSettingsRequested)

    def _restyle_tools_button(self) -> None:
        c = theme.colors()
        self.tools_button.setStyleSheet(
            f"QToolButton {{ padding: 5px 10px; border-radius: 6px; border: 1px solid "
            f"{c['border']}; background: {c['base']}; }} QToolButton:hover {{ background: "
            f"{c['hover']}; }} QToolButton::menu-indicator {{ image: none; width: 0; }}")

    def _switch_all(self, on: bool) -> None:
        for action in list(self.tool_actions.values()):
            if action.isChecked() != on:
                action.setChecked(on)
