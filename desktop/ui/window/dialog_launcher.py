"""Opens the window's dialogs: any dialog of the registry
(:mod:`desktop.ui.window.dialog_registry`) by its kind, the MCP bundle form, and (for
:class:`ConversationActions` and Compare) any other kind they build.

Every dialog is window-modal and opened with ``open()``, never ``exec()``: a nested
event loop would hold up the asyncio tasks (a streaming answer, the model list, MCP
servers) that run on Qt's loop. There is one dialog of each kind at a time; asking
again brings it forward. What a dialog changed it announces by its own signals:
:attr:`DialogLauncher.opened` hands each new dialog to the window, which decides who
follows (:func:`desktop.ui.window.window_wiring.connect_dialogs`). When a dialog
closes, the keyboard focus goes back to the widget that had it when the dialog opened
(the message box, usually).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QDialog, QWidget
from shiboken6 import isValid

from desktop.ui.window.dialog_registry import dialog_entry
from desktop.ui.window.helpers import delete_on_close

if TYPE_CHECKING:
    from desktop.ui.window.dialog_registry import DialogServices, WindowDialog


def fit_to_screen(dialog: QWidget, parent: QWidget) -> None:
    """Shrink a dialog that would not fit on the window's screen (its default size is
    made for a large one): on a small screen every button must stay reachable."""
    screen = parent.screen() if parent is not None else None
    if screen is None:
        return
    room = screen.availableGeometry().size() * 0.95
    wanted = (dialog.size() if dialog.testAttribute(Qt.WidgetAttribute.WA_Resized)
              else dialog.sizeHint())
    if wanted.width() > room.width() or wanted.height() > room.height():
        dialog.resize(wanted.boundedTo(room))


class DialogLauncher(QObject):
    opened = Signal(str, QDialog)  # kind, a dialog just built (before it shows)
    extensionInstalled = Signal()  # an MCP bundle: the servers restart, the tools change

    def __init__(self, services: DialogServices, parent: QWidget) -> None:
        super().__init__(parent)
        self.services = services
        self.parent_widget = parent  # every dialog is modal to this window
        self._dialogs: dict[str, QDialog] = {}

    def current(self, kind: str) -> QDialog | None:
        """The open dialog of ``kind`` ("providers", "mcp", …), if there is one."""
        return self._dialogs.get(kind)

    def open(self, kind: str) -> QDialog:
        """Open the registered dialog of ``kind`` (or bring the open one forward)."""
        module, _, name = dialog_entry(kind).target.partition(":")

        def make() -> QDialog:
            import importlib  # (the dialog's module loads when it first opens)

            dialog_class: WindowDialog = getattr(importlib.import_module(module), name)
            return dialog_class.for_window(self.services, self.parent_widget)

        return self.show_one(kind, make)

    def show_one(self, kind: str, make: Callable[[], QDialog]) -> QDialog:
        """Open the dialog ``make`` builds, or bring the open one of ``kind`` forward."""
        existing = self._dialogs.get(kind)
        if existing is not None and existing.isVisible():
            existing.raise_()
            existing.activateWindow()
            return existing
        # where the keyboard was: it goes back there when the dialog closes
        before = self.parent_widget.focusWidget()
        dialog = make()
        self.opened.emit(kind, dialog)
        delete_on_close(dialog)
        dialog.finished.connect(lambda _result: self.give_focus_back(before))

        def closed(_result: int) -> None:
            if self._dialogs.get(kind) is dialog:
                del self._dialogs[kind]

        dialog.finished.connect(closed)
        self._dialogs[kind] = dialog
        fit_to_screen(dialog, self.parent_widget)
        dialog.open()
        return dialog

    def give_focus_back(self, widget: QWidget | None) -> None:
        """Focus ``widget`` (what had it when a dialog opened) or, when it is gone or
        hidden, the message box: never whatever comes first in the window's chain
        (a message's Copy button, say)."""
        window = self.parent_widget
        if widget is None or not isValid(widget) or not widget.isVisible() \
                or not widget.isEnabled() or widget.window() is not window:
            composer = getattr(window, "composer", None)
            widget = composer.input if composer is not None else None
        if widget is not None:
            widget.setFocus(Qt.FocusReason.OtherFocusReason)

    def install_extension(self, path: str | None = None) -> QDialog | None:
        """File → Install extension… (or a bundle dropped on the window): the form of
        the MCP bundle at ``path`` (asked for when None); once installed, the MCP
        servers restart with it."""
        from PySide6.QtCore import QCoreApplication
        from PySide6.QtWidgets import QFileDialog

        from desktop.ui.tools.bundle_dialog import open_bundle_dialog

        if path is None:
            path, _ = QFileDialog.getOpenFileName(
                self.parent_widget, QCoreApplication.translate("MainWindow", "Install extension"),
                "", QCoreApplication.translate("MainWindow", "MCP bundles (*.mcpb *.dxt)"))
            if not path:
                return None
        dialog = open_bundle_dialog(self.services.app.bundles, path, self.parent_widget)
        if dialog is not None:
            dialog.accepted.connect(self.extensionInstalled)
        return dialog
