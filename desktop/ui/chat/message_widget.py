"""One message in the chat: header (:mod:`desktop.ui.chat.message_header`), collapsible
reasoning, the tool calls (expandable inline), markdown body (a long user message
folds), attachments, status; later assistant messages of the same turn continue inside
the first one's block."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QGuiApplication,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import QFrame, QMenu, QToolButton, QVBoxLayout, QWidget

from desktop.chat.message_edits import is_continuation
from desktop.core.attachments import attachment_info
from desktop.core.messages import ImagePart, Message, ToolCallPart, ToolResultPart
from desktop.core.page_preview import is_page
from desktop.ui import theme
from desktop.ui.chat.answer_images import answer_images, tool_images
from desktop.ui.chat.attachment_cards import attachment_cards
from desktop.ui.chat.chat_selection import SelectionModel
from desktop.ui.chat.copy_menu import fill_copy_menu
from desktop.ui.chat.image_strip import image_strip
from desktop.ui.chat.message_header import MessageHeader, header_for
from desktop.ui.chat.message_texts import status_text
from desktop.ui.chat.reasoning_section import ReasoningSection
from desktop.ui.chat.sources_view import SourcesView, block_sources
from desktop.ui.chat.tool_calls_inline import ToolCallsInline
from desktop.ui.chat.usage_text import PriceSource, answer_figures
from desktop.ui.markdown.artifacts import open_preview
from desktop.ui.markdown.view import MarkdownView
from desktop.ui.plain_text import plain_label

FOLD_LINES = 14  # a user message taller than this many lines folds behind "Show more"
NO_LIMIT = 16777215  # Qt's QWIDGETSIZE_MAX


class MessageWidget(QFrame):
    """Displays one user or assistant message; assistant text can stream in."""

    heightChanged = Signal()
    memoryUndoRequested = Signal(str)  # a memory's id ("Memory saved: … · Undo")
    readAloudRequested = Signal(str)  # the answer's markdown

    def __init__(self, message: Message, *, show_header: bool = True,
                 continuation: bool = False, parent: QWidget | None = None,
                 selection: SelectionModel | None = None,
                 key: tuple[int, int] = (0, 0), defer_body: bool = False,
                 header: MessageHeader | None = None) -> None:
        super().__init__(parent)
        self._body_pending = defer_body  # the text comes in finish_body()
        self.message = message
        self.message_id = message.id
        self.role = message.role
        self.continuations: list[MessageWidget] = []
        self._selection = selection
        self._key = key
        self.prices: PriceSource = dict  # the user's model prices (set by the chat view)
        if continuation:
            self.setObjectName("assistantContinuation")
        else:
            self.setObjectName("userMessage" if message.role == "user" else "assistantMessage")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setAttribute(Qt.WidgetAttribute.WA_StaticContents, True)
        layout = QVBoxLayout(self)
        margin = 0 if continuation else 16
        layout.setContentsMargins(margin, 0 if continuation else 10, margin,
                                  0 if continuation else 12)
        layout.setSpacing(6)
        self._layout = layout
        self._build_header(message, show_header, header)
        self._thinking: ReasoningSection | None = None  # created when there is some
        # (tool calls and sources are built when there are some: most blocks have none,
        # and blocks are built while the chat scrolls)
        self._tool_calls: ToolCallsInline | None = None
        self._sources: SourcesView | None = None
        self.body = self._make_view(dim=False, index=1)
        layout.addWidget(self.body)
        self.fold_button: QToolButton | None = None  # "Show more" of a long user message
        self.folded = False
        self.editing = False
        self.attachments: QWidget | None = None  # the images' thumbnails
        self.images: QWidget | None = None  # an answer's own images
        self.files: QWidget | None = None  # the other files' cards
        self.status_label = plain_label()  # a server's error text is not markup
        self.status_label.setObjectName("messageStatus")
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status_label.hide()
        layout.addWidget(self.status_label)
        self._text_chunks: list[str] = []
        self._calls: list[ToolCallPart] = []
        self._results: dict[str, ToolResultPart] = {}
        self.set_message(message)

    def _make_view(self, *, dim: bool, index: int) -> MarkdownView:
        view = MarkdownView(dim=dim, selection=self._selection,
                            key=(self._key[0], self._key[1] + index))
        view.set_background(self._card_color())
        view.contentChanged.connect(self._changed)
        return view

    def _card_color(self) -> QColor:
        """The card's colour, which the bodies paint themselves (see
        :meth:`MarkdownView.set_background`)."""
        return QColor(theme.colors()["user_bg" if self.role == "user" else "assistant_bg"])

    def _build_header(self, message: Message, show: bool,
                      row: MessageHeader | None) -> None:
        """``row``: built ahead (:func:`header_for`), else built now."""
        # (parented at once: a parentless widget made visible is a window of its own,
        # which would take the focus from the main window and with it its shortcuts)
        if row is None:
            row = header_for(message, self)
        else:
            row.setParent(self)
        row.set_copy_menu(self._fill_copy_menu)
        row.title.setToolTip(datetime.fromtimestamp(message.created_at).isoformat(" ",
                                                                                  "seconds"))
        row.copy_button.clicked.connect(self.copy_markdown)
        row.readAloudRequested.connect(self._read_aloud)
        row.previewPageRequested.connect(self._preview_page)
        row.is_page = self._is_page
        self.header = row.title
        self.tokens_label = row.tokens_label
        self.copy_button, self.copy_menu = row.copy_button, row.copy_menu
        self.branch_bar = row.branch_bar
        row.setVisible(show)
        self.header_row = row
        self._layout.addWidget(row)

    @property
    def tool_calls(self) -> ToolCallsInline:
        if self._tool_calls is None:
            self._tool_calls = ToolCallsInline()
            self._tool_calls.toggled.connect(self._changed)
            self._tool_calls.memoryUndoRequested.connect(self.memoryUndoRequested)
            self._layout.insertWidget(self._layout.indexOf(self.body), self._tool_calls)
        return self._tool_calls

    @property
    def sources(self) -> SourcesView:
        """The whole answer's sources, on its first widget, last in the block."""
        if self._sources is None:
            self._sources = SourcesView(self)
            self._layout.addWidget(self._sources)
        return self._sources

    @property
    def reasoning_toggle(self) -> QToolButton:
        return self._reasoning_section().toggle

    @property
    def reasoning_view(self) -> MarkdownView:
        return self._reasoning_section().view

    def _reasoning_section(self) -> ReasoningSection:
        if self._thinking is None:
            self._thinking = ReasoningSection(self._layout, self._make_view(dim=True, index=0),
                                              self._changed)
        return self._thinking

    def add_continuation(self, widget: MessageWidget) -> None:
        """Show a later assistant message of the same turn inside this block."""
        at = self._layout.count() if self._sources is None else self._layout.indexOf(self._sources)
        self._layout.insertWidget(at, widget)
        self.continuations.append(widget)
        widget.heightChanged.connect(self._changed)
        if widget._sources is not None:  # the block's sources show on its first widget
            widget._sources.show_sources([])
        self.update_usage()
        self.refresh_sources()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        old, new = event.oldSize(), event.size()
        if old.width() != new.width():
            self.update()
            if self.fold_button is not None:
                self._fold(self.folded)
        elif new.height() != old.height():  # static contents: redraw the bottom edge
            chrome = self._layout.contentsMargins().bottom() + 24
            self.update(0, min(old.height(), new.height()) - chrome, new.width(),
                        abs(new.height() - old.height()) + chrome)

    def _changed(self) -> None:
        """Something inside changed size: drop cached layout sizes, tell the chat."""
        self._layout.invalidate()
        self.updateGeometry()
        self.heightChanged.emit()

    # -- whole message ----------------------------------------------------------------

    def set_message(self, message: Message) -> None:
        self.message = message
        self._text_chunks = [message.body_text]
        self._calls = list(message.tool_calls)
        text = message.body_text  # (attached files show as cards, not as text)
        if not self._body_pending:
            self.body.set_markdown(text)
        self.body.setVisible(bool(text) and not is_continuation(message))
        if message.role == "user" and (text.count("\n") >= FOLD_LINES
                                       or len(text) > 40 * FOLD_LINES):
            self._fold(True)  # (whether it is tall enough to fold depends on the width)
        if message.reasoning:
            self.reasoning_view.set_markdown(message.reasoning)
            durations = [p.duration_s for p in message.parts
                         if p.type == "reasoning" and p.duration_s is not None]
            self._reasoning_section().show_header(sum(durations) if durations else None,
                                                  collapse=True)
        self._show_attachments(message)
        self._update_tool_line()
        self.set_status(message)

    def body_pending(self) -> bool:
        return any(w._body_pending for w in [self, *self.continuations])

    def prepare_body(self, until: float) -> bool:
        """Build the text of a block built ahead without it, a piece per idle step
        (:meth:`MarkdownView.prepare`): True when all of it is built and
        :meth:`finish_body` only has to show it."""
        for widget in [self, *self.continuations]:
            if widget._body_pending and not widget.body.prepare(widget.message.body_text,
                                                                until):
                return False
        return True

    def body_prepared(self) -> bool:
        return all(w.body.is_prepared(w.message.body_text)
                   for w in [self, *self.continuations] if w._body_pending)

    def finish_body(self) -> bool:
        """Render the text of a block built ahead without it (``defer_body``: the chat
        builds the widget and renders its text in two idle steps); True if it did."""
        pending = [w for w in [self, *self.continuations] if w._body_pending]
        for widget in pending:
            widget._body_pending = False
            widget.body.set_markdown(widget.message.body_text)
        return bool(pending)

    def set_status(self, message: Message) -> None:
        text = status_text(message)
        if text is not None:
            self.status_label.setText(text)
            self.status_label.setProperty("kind", message.status)
            self.status_label.style().polish(self.status_label)
            self.status_label.show()
        else:
            self.status_label.hide()
        if message.id == self.message_id:
            self.message = message
        self.update_usage()
        self.refresh_sources()

    def refresh_sources(self) -> None:
        owner = self._owner()
        block = [owner, *owner.continuations]
        found = block_sources([(w.message, w._results) for w in block])
        if found or owner._sources is not None:
            owner.sources.show_sources(found)
        self._changed()

    def update_usage(self) -> None:
        text, tip = answer_figures([w.message for w in [self, *self.continuations]], self.prices())
        self.header_row.set_figures(text, tip)

    # -- folding and the edit highlight ---------------------------------------------------

    def _fold(self, folded: bool) -> None:
        """A long user message shows its first lines and "Show more"."""
        if self.fold_button is None:
            self.fold_button = QToolButton()
            self.fold_button.setObjectName("messageAction")
            self.fold_button.setCursor(Qt.CursorShape.PointingHandCursor)
            self.fold_button.clicked.connect(lambda: self._fold(not self.folded))
            self._layout.insertWidget(self._layout.indexOf(self.body) + 1, self.fold_button)
        self.folded = folded
        limit = FOLD_LINES * self.body.fontMetrics().lineSpacing()
        width = self.body.width() if self.width() > 0 else 0
        tall = width <= 0 or self.body.heightForWidth(width) > limit * 5 // 4
        height = limit if folded and tall else NO_LIMIT
        self.fold_button.setVisible(tall)
        self.fold_button.setText(self.tr("Show more") if folded else self.tr("Show less"))
        self.fold_button.setAccessibleName(self.fold_button.text())
        if height != self.body.maximumHeight():
            self.body.setMaximumHeight(height)
            self._changed()

    def set_editing(self, editing: bool) -> None:
        """Mark this message as the one being edited in the composer."""
        if editing != self.editing:
            self.editing = editing
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.editing:  # drawn here, not in the theme: only one message is ever edited
            with QPainter(self) as painter:
                painter.setRenderHint(QPainter.RenderHint.Antialiasing)
                painter.setPen(QPen(QColor(theme.colors()["accent"]), 2))
                painter.drawRoundedRect(QRectF(self.rect()).adjusted(1, 1, -1, -1), 10, 10)

    def _show_attachments(self, message: Message) -> None:
        """Images as thumbnails, other files as cards (kind, name, size, their text); an
        answer's images inline (:mod:`desktop.ui.chat.answer_images`)."""
        for old in (self.attachments, self.files):
            if old is not None:
                old.deleteLater()
        images = [p for p in message.parts if isinstance(p, ImagePart)]
        self.attachments = image_strip(images if self.role == "user" else [],
                                       self.body.attachments)
        self._show_answer_images()
        documents = [(info, part) for part in message.parts if not isinstance(part, ImagePart)
                     and (info := attachment_info(part)) is not None]
        self.files = attachment_cards(documents, self._changed)
        at = self._layout.indexOf(self.body) + 1
        for widget in (self.files, self.attachments):
            if widget is not None:
                self._layout.insertWidget(at, widget)

    # -- streaming ----------------------------------------------------------------------

    def append_text(self, text: str) -> None:
        if self._thinking is not None:
            self._thinking.answer_began()
        self._text_chunks.append(text)
        if not self.body.isVisibleTo(self):
            self.body.show()
            self._changed()
        self.body.append(text)

    def append_reasoning(self, text: str) -> None:
        self._reasoning_section().append(text)

    def add_tool_call(self, call: ToolCallPart) -> None:
        """A call, or the same call again with its arguments complete (while streaming
        it was only a name)."""
        for index, known in enumerate(self._calls):
            if known.id == call.id:
                self._calls[index] = call
                break
        else:
            self._calls.append(call)
        self._update_tool_line()

    def add_tool_result(self, result: ToolResultPart) -> None:
        self._results[result.tool_call_id] = result
        self._update_tool_line()
        if result.provider_data.get("images"):
            self._show_answer_images()

    def show_images(self, message: Message) -> None:
        """The finished answer's images (its text streamed in already)."""
        self.message = message
        self._show_answer_images()

    def _show_answer_images(self) -> None:
        """The answer's images and those its tools returned, under its text."""
        if self.role == "user":
            return
        parts = [p for p in self.message.parts if isinstance(p, ImagePart)]
        parts += tool_images(list(self._results.values()))
        if self.images is not None:
            self.images.deleteLater()
        self.images = answer_images(parts, self._changed)
        if self.images is not None:  # (shown now: the layout would show it only later,
            self._layout.insertWidget(self._layout.indexOf(self.body) + 1, self.images)
            self.images.setVisible(True)  # and measure the block without it)
        self._changed()

    def flush(self) -> None:
        self.body.flush()
        if self._thinking is not None:
            self._thinking.view.flush()

    def _update_tool_line(self) -> None:
        if self._calls:
            self.tool_calls.show_calls(self._calls, self._results)
            self.refresh_sources()

    # -- copying --------------------------------------------------------------------------

    def plain_text(self) -> str:
        return "".join(self._text_chunks)

    def views(self) -> list[MarkdownView]:
        """Every markdown body of this block, top to bottom."""
        out = [self.body] if self._thinking is None else [self._thinking.view, self.body]
        for widget in self.continuations:
            out.extend(widget.views())
        return out

    def markdown_text(self) -> str:
        parts = [w.body.markdown() for w in [self, *self.continuations]]
        return "\n\n".join(p for p in parts if p.strip())

    def plain_body_text(self) -> str:
        parts = [w.body.toPlainText() for w in [self, *self.continuations]]
        return "\n\n".join(p for p in parts if p.strip())

    def copy_markdown(self) -> None:
        QGuiApplication.clipboard().setText(self.markdown_text())

    def copy_plain(self) -> None:
        QGuiApplication.clipboard().setText(self.plain_body_text())

    def _read_aloud(self) -> None:
        self.readAloudRequested.emit(self._owner().markdown_text())

    def _is_page(self) -> bool:
        return is_page(self._owner().markdown_text())

    def _preview_page(self) -> None:
        open_preview(self, "html", self._owner().markdown_text())

    def message_actions(self) -> list[QAction]:
        owner = self._owner()
        markdown = QAction(self.tr("Copy message as Markdown"), self)
        markdown.triggered.connect(owner.copy_markdown)
        plain = QAction(self.tr("Copy message as plain text"), self)
        plain.triggered.connect(owner.copy_plain)
        return [markdown, plain]

    def _owner(self) -> MessageWidget:
        parent = self.parentWidget()
        return parent if isinstance(parent, MessageWidget) else self

    def _fill_copy_menu(self, menu: QMenu) -> None:
        codes = [code for w in [self, *self.continuations] for code in w.body.code_blocks()]
        fill_copy_menu(menu, self.copy_markdown, self.copy_plain, codes)

    def dispose(self) -> None:
        """Free the documents now, and drop the header's references back to this widget:
        a released widget must be freed by reference counting, because the chat freezes
        what is alive out of the cyclic collector (``gc.freeze``) and a cycle frozen
        while the widget was on screen would never be collected."""
        for view in self.views():
            view.dispose()
        for widget in [self, *self.continuations]:
            widget.header_row.release()

    def restyle(self) -> None:
        if self._sources is not None:
            self._sources.restyle()
        for view in self.views():
            view.set_background(self._card_color())
            view.restyle()
