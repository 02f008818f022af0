"""Incremental markdown: finished top-level blocks are rendered once, only the open tail
is rendered again as text streams in.

Why it is exact: with reference definitions off (see :mod:`desktop.ui.markdown.renderer`), a
top-level block that is followed by another block which starts on a *complete* line
can no longer change, whatever text comes next; so blocks before the last one that
starts on a complete line are final. Parsing restarts at the first uncommitted line,
which is always the start of a top-level block. The concatenated HTML of
``committed + tail`` equals :meth:`MarkdownRenderer.render` of the whole text.

Shortcuts keep the usual frame from parsing anything but the paragraph being
written, or even all of that:

* a new paragraph (a line starting with a letter after a blank line) ends every
  block above it at once, not only when its own line is complete: after a blank
  line, a line that starts at its first column with a letter cannot continue a
  list, quote, table or paragraph above, and an open fence would already hold it
  (the parse says whether it starts a block of its own);
* a one-line paragraph is parsed only from where it is settled on
  (:mod:`desktop.ui.markdown.paragraph_tail`), and committed with the HTML it has
  once a blank line follows it (nothing at the top level continues a paragraph past
  a blank line);
* a fenced code block is committed once its closing line is complete (parsed alone,
  not again with the block after it).

A long code block that is still open (a file being written out) would cost a full
parse and highlight of all of it on every frame. While its fence is open it is shown
as pieces of :data:`CODE_PIECE_LINES` lines, each highlighted once when complete
(drawn as one box, see :attr:`Block.joins_next`); only the last piece changes. The
pieces are highlighted separately, so a string spanning two of them may be coloured
wrongly until the block closes; then, and at the end, it is rendered whole.
"""

from __future__ import annotations

import html
import re
import time
from typing import TYPE_CHECKING

import msgspec

from desktop.ui.markdown.code_tail import OpenCodeHighlight
from desktop.ui.markdown.list_tail import ListItemTail
from desktop.ui.markdown.paragraph_tail import ParagraphTail
from desktop.ui.markdown.renderer import Block, MarkdownRenderer, code_pre, top_level_groups

if TYPE_CHECKING:  # markdown-it loads on first use, not at startup
    from markdown_it.token import Token

CODE_PIECE_LINES = 20
#: Markdown parsed in one idle step of :class:`StepParse` (~2-4 ms).
PARSE_STEP_CHARS = 1500
# A fence opener at the start of the pending text (no indent: indented fences strip
# their indent from the content, which the fast path does not do).
_OPENER = re.compile(r"(`{3,}|~{3,})([^\n]*)\n")
_BLANK_LINES = re.compile(r"(?:[ \t]*\n)+")


class Update(msgspec.Struct):
    """What one streaming update rendered: the newly final blocks and the open tail."""

    committed: list[Block] = msgspec.field(default_factory=list)  # newly final blocks, in order
    tail: list[Block] = msgspec.field(default_factory=list)  # the open blocks after them


class IncrementalMarkdown:
    def __init__(self, renderer: MarkdownRenderer) -> None:
        self.renderer = renderer
        self._text = ""
        self._chunks: list[str] = []  # appended since the last update (joined there:
        # ``self.x += chunk`` on an attribute copies the whole text for every token)
        self.committed: list[Block] = []
        self.tail: list[Block] = []
        self._offset = 0  # chars of ``text`` already committed
        self._tail_source: str | None = None
        self._checked = -1  # complete-line length of the pending text last checked
        # Highlighted pieces of an open code block: (fence marker, language), pieces
        self._pieces_key: tuple[str, str] | None = None
        self._pieces: list[Block] = []
        self._open_lines = OpenCodeHighlight(renderer.palette.pygments_style)
        self._paragraph: ParagraphTail | None = None  # the open tail, when it is one
        self._list: ListItemTail | None = None  # the same for a list

    def append(self, chunk: str) -> None:
        self._chunks.append(chunk)

    @property
    def text(self) -> str:
        if self._chunks:
            self._text += "".join(self._chunks)
            self._chunks.clear()
        return self._text

    def update(self, *, final: bool = False) -> Update:
        """Render what changed since the last update. ``final`` commits everything."""
        pending = self.text[self._offset:]  # (joins what was appended)
        update = Update()
        if final:
            update.committed = self.renderer.blocks(pending) if pending else []
            self._commit(update.committed, len(pending))
            self.tail = []
            self._tail_source = None
            return update
        if pending == self._tail_source:
            update.tail = self.tail
            return update
        pending = self._commit_ended(pending, update)
        pending, grown = self._grown_paragraph(pending, update)
        if grown is None and self._list is not None:
            html = self._list.html(pending)
            grown = None if html is None else Block("text", html)
        if grown is not None:
            self.tail, self._tail_source = [grown], pending
            update.tail = self.tail
            return update
        if update.committed:  # (a paragraph: what follows its blank line may have ended)
            pending = self._commit_ended(pending, update)
        pieces = self._open_code_pieces(pending)
        if pieces is None:  # (one open code block: nothing before it to commit)
            pending = self._commit_final_blocks(pending, update)
            if update.committed:
                pieces = self._open_code_pieces(pending)
        if pending != self._tail_source:
            if pieces is not None:
                self.tail = pieces
            else:
                self.tail = self.renderer.blocks(pending) if pending else []
            self._tail_source = pending
            self._paragraph = self._list = None
            if len(self.tail) == 1 and self.tail[0].kind == "text":
                html = self.tail[0].html
                if html.startswith("<p>") and ParagraphTail.fits(pending):
                    self._paragraph = ParagraphTail(self.renderer.render_inline)
                else:
                    self._list = ListItemTail.of(pending, html, self.renderer.render_inline)
        update.tail = self.tail
        return update

    def _grown_paragraph(self, pending: str, update: Update) -> tuple[str, Block | None]:
        """The open paragraph's block for ``pending`` parsed only from where it is
        settled, when it is still that paragraph (None: parse it). Its line may have
        ended: a blank line after it ends it, whatever comes next (nothing at the top
        level continues a paragraph past a blank line), so it is committed then, with
        no parse; returned is what is left pending."""
        paragraph = self._paragraph
        if paragraph is None:
            return pending, None
        end = pending.find("\n")
        if end < 0:
            html = paragraph.html(pending)
            return pending, None if html is None else Block("text", html)
        blank = len(pending) - len(pending[end + 1:].lstrip(" \t"))  # (the next line's end?)
        complete = pending[blank:blank + 1] == "\n"
        if (blank < len(pending) and not complete) or "\r" in pending[:blank]:
            return pending, None  # another line: a longer paragraph, a heading, a table…
        html = paragraph.html(pending[:end])
        if html is None:
            return pending, None
        block = Block("text", html)
        if not complete:  # (the blank line is still being written)
            return pending, block
        update.committed.append(block)
        self._commit([block], blank + 1)
        return pending[blank + 1:], None

    def _commit_ended(self, pending: str, update: Update) -> str:
        """Commit at once what at the start of ``pending`` has ended whatever comes
        next: blank lines (no block) and a fenced code block whose closing line is
        complete (parsed alone: a fence holds no inline markup, its HTML is
        remembered); what is left pending."""
        while True:
            blank = _BLANK_LINES.match(pending)
            if blank is not None:
                self._commit([], blank.end())
                pending = pending[blank.end():]
            opener = _OPENER.match(pending)
            if opener is None or "\r" in pending:
                return pending
            marker = opener.group(1)
            closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*\n",
                                 re.MULTILINE).search(pending, opener.end())
            if closing is None:
                return pending
            groups = top_level_groups(self.renderer.parse(pending[:closing.end()]))
            if len(groups) != 1 or groups[0][0].type != "fence":
                return pending
            block = self.renderer.render_group(groups[0])
            update.committed.append(block)
            self._commit([block], closing.end())
            pending = pending[closing.end():]

    def _commit_final_blocks(self, pending: str, update: Update) -> str:
        """Commit the blocks of ``pending`` that can no longer change (into
        ``update.committed``); returns what is left pending."""
        stable = pending.rfind("\n") + 1  # only complete lines decide what is final
        partial = pending[stable:]
        new_block = (partial[:1].isalpha() and stable > 1
                     and not pending[pending.rfind("\n", 0, stable - 1) + 1:stable].strip())
        if new_block and -stable != self._checked:
            # A letter after a blank line: a block that ends all above it when the
            # parse says it starts there; else the last block began on a complete line
            # further up, and what is above that is final as usual.
            self._checked = -stable
            groups = top_level_groups(self.renderer.parse(pending))
            starts = groups[-1][0].map[0] if groups[-1][0].map else None
            if len(groups) > 1 and starts:
                cut = _line_offset(pending, starts)
                committed = [self.renderer.render_group(g) for g in groups[:-1]]
                update.committed.extend(committed)
                self._commit(committed, cut)
                return pending[cut:]
        if stable and stable != self._checked and not new_block:
            self._checked = stable
            groups = top_level_groups(self.renderer.parse(pending[:stable]))
            if len(groups) > 1:
                last_start = groups[-1][0].map[0] if groups[-1][0].map else None
                if last_start is not None and last_start > 0:
                    cut = _line_offset(pending, last_start)
                    committed = [self.renderer.render_group(g) for g in groups[:-1]]
                    update.committed.extend(committed)
                    self._commit(committed, cut)
                    pending = pending[cut:]
                    self._checked = stable - cut
        return pending

    def _open_code_pieces(self, pending: str) -> list[Block] | None:
        """``pending`` as pieces when it is one code block whose fence is still open;
        None otherwise (then it is rendered the usual way). Short blocks too: their
        complete lines are highlighted once, not again on every frame."""
        opener = _OPENER.match(pending)
        if opener is None or "\r" in pending or "\0" in pending:
            return None
        marker, info = opener.group(1), opener.group(2)
        if (marker[0] == "`" and "`" in info) or "\\" in info or "&" in info:
            return None  # (markdown-it would unescape the info string)
        code = pending[opener.end():]
        closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$",
                             re.MULTILINE)
        if closing.search(code):
            return None  # closed: rendered whole, exactly
        lang = info.strip().split(" ")[0]
        lines = code.splitlines(keepends=True)
        done = (code.count("\n") // CODE_PIECE_LINES) * CODE_PIECE_LINES
        if done and done == len(lines):  # keep the last complete piece open: it may grow
            done -= CODE_PIECE_LINES
        key = (marker, lang)
        if self._pieces_key != key:
            self._pieces_key, self._pieces = key, []
        for start in range(len(self._pieces) * CODE_PIECE_LINES, done, CODE_PIECE_LINES):
            chunk = "".join(lines[start:start + CODE_PIECE_LINES])
            self._pieces.append(Block("code", self.renderer.code_html(chunk, lang), chunk,
                                      lang, joins_prev=bool(start), joins_next=True))
        rest = "".join(lines[done:])
        last = Block("code", self._open_piece_html(rest, lang), rest, lang,
                     joins_prev=done > 0)
        return [*self._pieces[:done // CODE_PIECE_LINES], last]

    def _open_piece_html(self, code: str, lang: str) -> str:
        """The last piece: its complete lines highlighted (from the line before the
        new ones on, see :mod:`desktop.ui.markdown.code_tail`), the line being
        written as plain text until it is complete."""
        cut = code.rfind("\n") + 1
        complete, partial = code[:cut], code[cut:]
        body = self._open_lines.html(complete, lang)
        return code_pre(body + html.escape(partial, quote=False))

    def _commit(self, blocks: list[Block], chars: int) -> None:
        self.committed.extend(blocks)
        self._offset += chars
        self._pieces_key, self._pieces = None, []
        self._paragraph = self._list = None
        self._checked = -1

    def html(self) -> str:
        return "".join(b.html for b in [*self.committed, *self.tail])


def _line_offset(text: str, line: int) -> int:
    pos = 0
    for _ in range(line):
        pos = text.index("\n", pos) + 1
    return pos


class StepParse:
    """A long finished text parsed a piece per idle step instead of all at once (a
    long answer took 4-15 ms, and a scroll step arriving meanwhile missed its
    frame). Each step parses what is pending up to the next line end after
    :data:`PARSE_STEP_CHARS` more characters; the blocks that are final (followed by a
    block that starts on a complete line: see above) are rendered once each, the last
    piece's all. Rendering (code highlighted with Pygments: up to ~2 ms a block) goes
    on until ``until`` (``time.perf_counter``), at least one block a step, the rest in
    the next steps. The blocks are those of one parse; the renderer then remembers
    them (:meth:`MarkdownRenderer.cached_blocks` answers without a parse)."""

    def __init__(self, renderer: MarkdownRenderer, text: str) -> None:
        self.text = text
        self.renderer = renderer
        self._blocks: list[Block] = []
        self._groups: list[list[Token]] = []  # parsed, final, not rendered yet
        self._offset = 0  # chars of ``text`` parsed into final groups
        self._read = 0  # chars of ``text`` taken so far

    def step(self, until: float | None = None) -> bool:
        """Parse the next piece or render what is parsed (all of it when ``until`` is
        None); True when all of the text is parsed, rendered and remembered."""
        if self.renderer.has_blocks(self.text):
            return True
        if not self._groups:
            self._parse_piece()
        while self._groups:
            self._blocks.append(self.renderer.render_group(self._groups.pop(0)))
            if until is not None and time.perf_counter() >= until:
                break
        if self._groups or self._read < len(self.text):
            return False
        self.renderer.remember(self.text, self._blocks)
        return True

    def _parse_piece(self) -> None:
        end = self.text.find("\n", self._read + PARSE_STEP_CHARS)
        end = len(self.text) if end < 0 else end + 1
        self._read = end
        pending = self.text[self._offset:end]
        groups = top_level_groups(self.renderer.parse(pending))  # (complete lines only)
        if end >= len(self.text):
            self._groups = groups
            self._offset = end
            return
        last_start = groups[-1][0].map[0] if len(groups) > 1 and groups[-1][0].map else 0
        if last_start > 0:
            self._groups = groups[:-1]
            self._offset += _line_offset(pending, last_start)
