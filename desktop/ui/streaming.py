"""Incremental markdown: finished top-level blocks are rendered once, only the open tail
is rendered again as text streams in.

Why it is exact: with reference definitions off (see :mod:`desktop.ui.markdown`), a
top-level block that is followed by another block which starts on a *complete* line
can no longer change, whatever text comes next; so blocks before the last one that
starts on a complete line are final. Parsing restarts at the first uncommitted line,
which is always the start of a top-level block. The concatenated HTML of
``committed + tail`` equals :meth:`MarkdownRenderer.render` of the whole text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop.ui.markdown import Block, MarkdownRenderer, top_level_groups


@dataclass(slots=True)
class Update:
    committed: list[Block] = field(default_factory=list)  # newly final blocks, in order
    tail: list[Block] = field(default_factory=list)  # the open blocks after them


class IncrementalMarkdown:
    def __init__(self, renderer: MarkdownRenderer) -> None:
        self.renderer = renderer
        self.text = ""
        self.committed: list[Block] = []
        self.tail: list[Block] = []
        self._offset = 0  # chars of ``text`` already committed
        self._tail_source: str | None = None
        self._checked = -1  # complete-line length of the pending text last checked

    def append(self, chunk: str) -> None:
        self.text += chunk

    def update(self, *, final: bool = False) -> Update:
        """Render what changed since the last update. ``final`` commits everything."""
        pending = self.text[self._offset:]
        update = Update()
        if final:
            update.committed = self.renderer.blocks(pending) if pending else []
            self._commit(update.committed, len(pending))
            self.tail = []
            self._tail_source = None
            return update
        stable = pending.rfind("\n") + 1  # only complete lines decide what is final
        if stable and stable != self._checked:
            self._checked = stable
            groups = top_level_groups(self.renderer.parse(pending[:stable]))
            if len(groups) > 1:
                last_start = groups[-1][0].map[0] if groups[-1][0].map else None
                if last_start is not None and last_start > 0:
                    cut = _line_offset(pending, last_start)
                    update.committed = [self.renderer.render_group(g) for g in groups[:-1]]
                    self._commit(update.committed, cut)
                    pending = pending[cut:]
                    self._checked = stable - cut
        if pending != self._tail_source:
            self.tail = self.renderer.blocks(pending) if pending else []
            self._tail_source = pending
        update.tail = self.tail
        return update

    def _commit(self, blocks: list[Block], chars: int) -> None:
        self.committed.extend(blocks)
        self._offset += chars

    def html(self) -> str:
        return "".join(b.html for b in [*self.committed, *self.tail])


def _line_offset(text: str, line: int) -> int:
    pos = 0
    for _ in range(line):
        pos = text.index("\n", pos) + 1
    return pos
