"""Finding words in the open chat (Ctrl+F, and the words of a Ctrl+K hit).

Most blocks of a long chat have no widget (see :mod:`desktop.ui.chat.chat_layout`), so
the matches are counted in the messages' text as the chat shows it
(:func:`desktop.core.markdown_text.markdown_plain`), cached per message; a block is
built when a match in it is shown, and its bodies then mark their own matches (and
keep marking them when their text is rendered later or grows). A block's count is
corrected from its rendered bodies when it is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint, Signal

from desktop.chat.message_edits import is_continuation
from desktop.core.markdown_text import markdown_plain
from desktop.ui.chat.attachment_cards import AttachmentCard
from desktop.ui.markdown.find_marks import find_words, match_top

if TYPE_CHECKING:
    from desktop.core.messages import Message
    from desktop.ui.chat.chat_items import ChatItem
    from desktop.ui.chat.chat_view import ChatView
    from desktop.ui.chat.message_widget import MessageWidget
    from desktop.ui.markdown.view import MarkdownView


def shown_messages(item: ChatItem) -> list[Message]:
    """The messages of a block whose text the block shows (in its bodies, in order)."""
    return [m for m in item.messages if m.body_text and not is_continuation(m)]


def count_in(text: str, needles: Sequence[str]) -> int:
    """Matches of ``needles`` in lower-case ``text`` (not overlapping, like the marks)."""
    spans: list[tuple[int, int]] = []
    for needle in needles:
        start = text.find(needle)
        while start >= 0:
            spans.append((start, start + len(needle)))
            start = text.find(needle, start + len(needle))
    spans.sort()
    count, end = 0, -1
    for start, stop in spans:
        if start >= end:
            count, end = count + 1, stop
    return count


class ChatFind(QObject):
    """The words looked for in one chat view and which match is the current one."""

    changed = Signal(int, int)  # current match (0-based, -1 none), number of matches

    def __init__(self, view: ChatView) -> None:
        super().__init__(view)
        self.view = view
        self.needles: tuple[str, ...] = ()
        self.counts: list[int] = []  # matches per block
        self.current = -1
        self.from_search = False  # the words of a search hit: gone with the chat
        self._plain: dict[str, tuple[int, str]] = {}  # message id -> (length, plain text)

    @property
    def total(self) -> int:
        return sum(self.counts)

    def _text(self, message: Message) -> str:
        body = message.body_text
        cached = self._plain.get(message.id)
        if cached is None or cached[0] != len(body):
            cached = (len(body), markdown_plain(body).lower())
            self._plain[message.id] = cached
        return cached[1]

    def _estimate(self, item: ChatItem) -> int:
        return sum(count_in(self._text(m), self.needles) for m in shown_messages(item))

    @staticmethod
    def bodies(widget: MessageWidget) -> list[MarkdownView]:
        return [w.body for w in [widget, *widget.continuations] if not w.body.isHidden()]

    # -- what is looked for ---------------------------------------------------------------

    def find(self, text: str) -> None:
        """Look for ``text`` (Ctrl+F): the first match from the top of the screen on."""
        self.from_search = False
        self._set_needles([text.lower()] if text.strip() else [])
        if not self.total:
            self._show(-1)
            return
        before = sum(self.counts[:self._first_on_screen()])
        self._show(before if before < self.total else 0)

    def _first_on_screen(self) -> int:
        """The first block on screen (its widget's bottom below the top)."""
        return next((i for i, item in enumerate(self.view.items()) if item.widget is not None
                     and item.widget.isVisible() and item.widget.geometry().bottom() >= 0), 0)

    def highlight(self, message_id: str, words: Sequence[str]) -> bool:
        """Mark ``words`` in the chat and show their first match in message
        ``message_id`` (a search hit); False when the message shows none of them."""
        index = next((i for i, item in enumerate(self.view.items())
                      if any(m.id == message_id for m in item.messages)), None)
        self._set_needles([w.lower() for w in words if w.strip()])
        self.from_search = True
        if index is None or not self.counts[index]:
            self._show(-1)
            return False
        item = self.view.items()[index]
        offset = 0
        for message in shown_messages(item):
            if message.id == message_id:
                break
            offset += count_in(self._text(message), self.needles)
        local = offset if offset < self.counts[index] else 0
        self._show(sum(self.counts[:index]) + local)
        return True

    def reveal_in_files(self, message_id: str, words: Sequence[str]) -> bool:
        """Show ``words`` in the extracted text of a file sent with message
        ``message_id`` (a search hit there); False when none of its files has them."""
        index = next((i for i, item in enumerate(self.view.items())
                      if item.messages[0].id == message_id), None)
        if index is None:
            return False
        widget = self.view.show_at(index, 0)
        for card in widget.findChildren(AttachmentCard):
            if card.reveal(words):
                self.view.show_at(index, card.mapTo(widget, QPoint(0, 0)).y())
                return True
        return False

    def clear(self) -> None:
        self._set_needles([])
        self._show(-1)

    def step(self, delta: int) -> None:
        """The next (+1) or previous (-1) match, round the end."""
        self.recount()
        if self.total:
            start = self.current if self.current >= 0 else (-1 if delta > 0 else 0)
            self._show((start + delta) % self.total)

    def chat_shown(self) -> None:
        """Another chat (or version) is shown: Ctrl+F's words are looked for in it,
        a search hit's words go (they were for the chat it opened)."""
        if self.from_search:
            self.from_search = False
            self.needles = ()
        self.current = -1
        self.recount()

    def recount(self) -> None:
        """The chat changed (another chat, new messages): count again; the blocks
        built mark what is looked for now (nothing: their marks go)."""
        items = self.view.items()
        self.counts = [self._estimate(item) if self.needles else 0 for item in items]
        for index, item in enumerate(items):
            if item.widget is not None:
                found = self._apply(index, item.widget)
                if self.needles and not item.widget.body_pending():
                    self.counts[index] = found
        if self.current >= self.total:
            self.current = self.total - 1
        self.changed.emit(self.current, self.total)

    def _set_needles(self, needles: Sequence[str]) -> None:
        self.needles = tuple(needles)
        self.current = -1
        self.recount()

    # -- marks and scrolling --------------------------------------------------------------

    def _locate(self, number: int) -> tuple[int, int]:
        """(block, match within it) of match ``number``."""
        for index, count in enumerate(self.counts):
            if number < count:
                return index, number
            number -= count
        return -1, -1

    def _apply(self, index: int, widget: MessageWidget) -> int:
        """Mark the matches in block ``index``'s bodies; how many there are."""
        block, local = self._locate(self.current) if self.current >= 0 else (-1, -1)
        total = 0
        for body in self.bodies(widget):
            current = local - total if block == index and local >= total else -1
            total += find_words(body, self.needles, current)
        return total

    def widget_built(self, index: int, widget: MessageWidget) -> None:
        """A block got its widget: it marks what is looked for."""
        if self.needles:
            self._apply(index, widget)

    def _show(self, number: int) -> None:
        self.current = number
        index, local = self._locate(number) if number >= 0 else (-1, -1)
        for other, item in enumerate(self.view.items()):
            if item.widget is not None and other != index:
                self._apply(other, item.widget)
        if index >= 0:
            widget = self.view.show_at(index, 0)
            found = self._apply(index, widget)
            if found != self.counts[index] and not widget.body_pending():
                self.counts[index] = found  # the rendered text is the truth
                if found == 0:  # none here after all: the next one
                    self._show(number % self.total if self.total else -1)
                    return
                self.current = number - local + min(local, found - 1)
                local = min(local, found - 1)
                self._apply(index, widget)
            self._scroll_to(index, widget, local)
        self.changed.emit(self.current, self.total)

    def _scroll_to(self, index: int, widget: MessageWidget, local: int) -> None:
        for body in self.bodies(widget):
            count = len(body.found.matches)
            if local < count:
                y = body.mapTo(widget, QPoint(0, 0)).y() + match_top(body, local)
                self.view.show_at(index, y)
                return
            local -= count
        self.view.show_at(index, 0)
