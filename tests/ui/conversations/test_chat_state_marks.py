"""The chat list's marks: a chat answering in the background has a turning spinner,
and each turn repaints only the mark, not the whole row (its title and the row's
background stay as they were: a row repainted 11 times a second was a good part of
what a second chat answering in the background cost)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QPaintEvent, QRegion
from PySide6.QtWidgets import QApplication, QListWidget, QListWidgetItem

from desktop.ui.conversations.chat_states import STEP_S, ChatStateMarks
from desktop.ui.conversations.session_items import HEADER_ROLE, ID_ROLE, STATE_MARK, TITLE_ROLE


class Painted(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.region = QRegion()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(event, QPaintEvent):
            self.region = self.region.united(event.region())
        return False


def listed(qtbot: Any, headers: dict[int, str | None]) -> tuple[QListWidget, ChatStateMarks]:
    """A chat list of long-titled chats s0, s1... (``headers``: each row's group title,
    None for none) with its state marks."""
    chat_list = QListWidget()
    qtbot.addWidget(chat_list)
    chat_list.resize(280, 300)
    marks = ChatStateMarks(chat_list)
    for number, header in headers.items():
        item = QListWidgetItem(f"A chat with a long title number {number}")
        item.setData(ID_ROLE, f"s{number}")
        item.setData(TITLE_ROLE, item.text())
        if header is not None:
            item.setData(HEADER_ROLE, header)
        chat_list.addItem(item)
    return chat_list, marks


def test_a_turning_spinner_repaints_only_its_mark(qtbot: Any) -> None:
    chat_list, marks = listed(qtbot, {0: "Today", 1: None, 2: "Yesterday", 3: None})
    chat_list.show()
    qtbot.waitExposed(chat_list)
    marks.set_current("s0")
    marks.set_state("s0", "answering")  # on screen: its mark does not turn
    marks.set_state("s2", "answering")  # in the background: it turns
    app = QApplication.instance()
    assert app is not None
    app.processEvents()
    row = chat_list.visualItemRect(chat_list.item(2))
    before = chat_list.viewport().grab(row).toImage()
    painted = Painted()
    chat_list.viewport().installEventFilter(painted)
    marks._spin()
    qtbot.waitUntil(lambda: not painted.region.isEmpty(), timeout=5000)
    app.processEvents()
    bounds = painted.region.boundingRect()
    assert bounds.intersects(row)
    assert bounds.width() <= STATE_MARK + 4 and bounds.height() <= STATE_MARK + 4
    after = chat_list.viewport().grab(row).toImage()
    changed = [(x, y) for y in range(before.height()) for x in range(before.width())
               if before.pixel(x, y) != after.pixel(x, y)]
    assert changed  # the spinner turned
    mark = QRect(bounds.topLeft() - row.topLeft(), bounds.size())
    assert all(mark.contains(x, y) for x, y in changed)
    assert marks.state_of("s0") == "answering"


def test_a_spinner_step_draws_only_the_mark(qtbot: Any, monkeypatch: Any) -> None:
    """The row's title and background lie outside what a step repaints: they are not
    drawn for it (drawn and clipped away, they were most of what a step cost); a
    repaint that reaches the title draws the row whole."""
    from PySide6.QtWidgets import QStyledItemDelegate

    chat_list, marks = listed(qtbot, {0: "Today", 1: None, 2: None})
    chat_list.show()
    qtbot.waitExposed(chat_list)
    marks.set_state("s0", "answering")
    marks.set_state("s1", "answering")
    app = QApplication.instance()
    assert app is not None
    app.processEvents()
    drawn: list[int] = []  # rows whose title Qt's delegate drew
    base_paint = QStyledItemDelegate.paint

    def counted(self: QStyledItemDelegate, painter: Any, option: Any, index: Any) -> None:
        drawn.append(index.row())
        base_paint(self, painter, option, index)

    monkeypatch.setattr(QStyledItemDelegate, "paint", counted)
    painted = Painted()
    chat_list.viewport().installEventFilter(painted)
    before = chat_list.viewport().grab().toImage()
    drawn.clear()
    marks._spin()
    qtbot.waitUntil(lambda: not painted.region.isEmpty(), timeout=5000)
    app.processEvents()
    assert drawn == []  # both marks turned, no title drawn
    assert chat_list.viewport().grab().toImage() != before
    painted.region = QRegion()
    chat_list.viewport().update(chat_list.visualItemRect(chat_list.item(1)))
    qtbot.waitUntil(lambda: not painted.region.isEmpty(), timeout=5000)
    assert 1 in drawn  # the whole row: its title too


class Passes(QObject):
    """Counts the window's paint passes (update requests) and notes the pass in which
    each watched widget was painted."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self.painted: dict[QObject, list[int]] = {}

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.UpdateRequest:
            self.count += 1
        elif isinstance(event, QPaintEvent):
            self.painted.setdefault(watched, []).append(self.count)
        return False


def test_a_spinner_steps_in_the_pass_of_a_streamed_frame(qtbot: Any) -> None:
    """While the chat on screen streams, a background chat's spinner steps when a frame
    is rendered, so Qt paints it in that frame's pass, not in one of its own between
    frames (each pass paints and sends the window's backing store); the steps that
    fell due since the last one are taken, so it turns as fast as on its timer."""
    from PySide6.QtWidgets import QHBoxLayout, QWidget

    from desktop.ui.markdown.view import MarkdownView

    now = [100.0]
    window = QWidget()
    qtbot.addWidget(window)
    layout = QHBoxLayout(window)
    chat_list = QListWidget()
    view = MarkdownView()
    layout.addWidget(chat_list)
    layout.addWidget(view)
    marks = ChatStateMarks(chat_list, clock=lambda: now[0])
    for number in range(2):
        item = QListWidgetItem(f"Chat {number}")
        item.setData(ID_ROLE, f"s{number}")
        item.setData(TITLE_ROLE, item.text())
        chat_list.addItem(item)
    window.resize(700, 300)
    window.show()
    qtbot.waitExposed(window)
    marks.set_current("s0")
    marks.set_state("s0", "answering")
    marks.set_state("s1", "answering")  # in the background: its spinner turns
    marks._spinner.setInterval(3_600_000)  # (its own timer out of the way)
    marks._spinner.start()
    passes = Passes()
    window.installEventFilter(passes)
    chat_list.viewport().installEventFilter(passes)
    view.installEventFilter(passes)
    now[0] += 2.5 * STEP_S  # two steps fell due
    view.append("Some words of the answer on screen")
    qtbot.waitUntil(lambda: view.render_count == 1, timeout=5000)
    assert marks.delegate.phase == 2
    qtbot.waitUntil(lambda: chat_list.viewport() in passes.painted
                    and view in passes.painted, timeout=5000)
    assert passes.painted[chat_list.viewport()] == passes.painted[view]  # one pass
    now[0] += 0.5 * STEP_S  # the half step left over and this one: one more step
    view.append(" and more")
    qtbot.waitUntil(lambda: view.render_count == 2, timeout=5000)
    assert marks.delegate.phase == 3


def test_the_chat_list_paints_its_panel_colour_itself(qtbot: Any) -> None:
    """The style sheet leaves the list transparent over its panel: each repaint of a
    row (a spinner's step) painted the panel under it too. The list paints the
    panel's colour itself, in either theme: a row repainted paints nothing under the
    list, and the list looks the same."""
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from desktop.ui import theme
    from desktop.ui.conversations.session_items import ChatListWidget

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        for mode in ("light", "dark"):
            theme.apply_theme(app, mode)
            panel = QWidget()
            qtbot.addWidget(panel)
            panel.setObjectName("sessionPanel")  # (its background: the sidebar colour)
            chat_list = ChatListWidget()
            QVBoxLayout(panel).addWidget(chat_list)
            chat_list.addItem(QListWidgetItem("A chat"))
            panel.resize(260, 300)
            panel.show()
            qtbot.waitExposed(panel)
            app.processEvents()
            image = panel.grab().toImage()
            inside = chat_list.viewport().mapTo(panel, chat_list.viewport().rect().center())
            assert image.pixelColor(inside).name() == image.pixelColor(2, 2).name() \
                == theme.colors()["sidebar"]
            under = Painted()
            panel.installEventFilter(under)
            painted = Painted()
            chat_list.viewport().installEventFilter(painted)
            chat_list.viewport().update(chat_list.visualItemRect(chat_list.item(0)))
            qtbot.waitUntil(lambda: not painted.region.isEmpty(), timeout=5000)  # noqa: B023
            assert under.region.isEmpty()
    finally:
        theme.apply_theme(app, "light")  # (as other tests leave it)


def test_a_spinner_step_finds_its_row_without_looking_through_the_list(
        qtbot: Any, monkeypatch: Any) -> None:
    """With many chats a step looked through every row for the answering one (1,000
    rows: ~1.6 ms a step, 11 steps a second); the row found is kept while it is still
    in the list and still that chat's. Filled again, the list's new row is found."""
    chat_list = QListWidget()
    qtbot.addWidget(chat_list)
    chat_list.resize(280, 300)
    marks = ChatStateMarks(chat_list)

    def fill() -> None:
        chat_list.clear()
        for number in range(300):
            item = QListWidgetItem(f"Chat {number}")
            item.setData(ID_ROLE, f"s{number}")
            item.setData(TITLE_ROLE, item.text())
            marks.show(item, f"s{number}")
            chat_list.addItem(item)

    fill()
    chat_list.show()
    qtbot.waitExposed(chat_list)
    chat_list.scrollToBottom()
    marks.set_state("s298", "answering")
    app = QApplication.instance()
    assert app is not None
    app.processEvents()
    looked: list[int] = []
    base_item = QListWidget.item

    def counted(self: QListWidget, row: int) -> QListWidgetItem:
        looked.append(row)
        return base_item(self, row)

    monkeypatch.setattr(QListWidget, "item", counted)
    marks._spin()
    marks._spin()
    assert len(looked) <= 1  # (not 299 rows a step)
    fill()  # the list filled again: its items are new
    chat_list.scrollToBottom()
    app.processEvents()
    painted = Painted()
    chat_list.viewport().installEventFilter(painted)
    marks._spin()
    qtbot.waitUntil(lambda: not painted.region.isEmpty(), timeout=5000)
    row = chat_list.visualItemRect(chat_list.findItems("Chat 298", Qt.MatchFlag.MatchExactly)[0])
    assert painted.region.boundingRect().intersects(row)
