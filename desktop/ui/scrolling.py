"""Let a dialog's content scroll rather than hold the dialog wider or taller than a small
screen: :func:`scrolling` wraps a widget in a frameless scroll area that lends it the
area's width and shows scroll bars only when the widget cannot shrink further."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QFrame, QScrollArea, QSizePolicy, QStackedWidget, QWidget


def scrolling(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    # Not a stop of its own for Tab (an invisible one): Tab goes to the fields inside,
    # and the area scrolls to show the one focused.
    area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    # The dialog's own background shows through (no second, darker panel).
    area.viewport().setAutoFillBackground(False)
    widget.setAutoFillBackground(False)
    return area


class _SideWidth(QObject):
    """Resizes watched: the side list takes at most ``fraction`` of its width."""

    def __init__(self, side: QWidget, watched: QWidget, fraction: float, widest: int) -> None:
        super().__init__(watched)
        self.side, self.fraction, self.widest = side, fraction, widest
        watched.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and isinstance(watched, QWidget):
            width = int(watched.width() * self.fraction)
            self.side.setMaximumWidth(max(self.side.minimumWidth(), min(self.widest, width)))
        return False


def narrow_side(side: QWidget, dialog: QWidget, *, widest: int, fraction: float = 0.3) -> None:
    """Keep a dialog's side list (providers, assistants) at most ``widest`` pixels and
    ``fraction`` of the dialog: on a small screen the form beside it gets the room."""
    _SideWidth(side, dialog, fraction, widest)


def sized_by_current(stack: QStackedWidget) -> None:
    """Let ``stack`` take the size of its current page only (a QStackedWidget takes the
    largest of all its pages): a small page shown alone, such as the Providers dialog's
    first-run presets, is then not held as wide as a wide form hidden behind it."""
    policies: dict[QWidget, QSizePolicy] = {}

    def follow() -> None:
        current = stack.currentIndex()
        for index in range(stack.count()):
            page = stack.widget(index)
            if page is None:
                continue
            policies.setdefault(page, page.sizePolicy())
            if index == current:
                page.setSizePolicy(policies[page])
            else:
                page.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
            page.updateGeometry()

    # (after the switch, from the event loop: the stack also switches pages while it is
    # being destroyed, and nothing may touch its pages then; a timer with the stack as
    # its context is dropped with it)
    stack.currentChanged.connect(lambda _index: QTimer.singleShot(0, stack, follow))
    follow()
