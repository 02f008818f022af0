"""Asking for tool approval on a terminal (``assista ask`` with stdin a TTY).

The request (tool, where it comes from, and the preview: diff, command, URL or
arguments) is written to stderr, never stdout (stdout carries the answer).
Answers: ``y``/``yes`` allow once, ``a``/``always`` allow always (persisted),
``s``/``scope`` allow always within the proposed scope (a path pattern, a command
prefix or a host, when the tool has one),
``c``/``chat`` allow for the rest of this run, ``n``/``no`` or an empty line deny;
``n <reason>`` denies and sends the reason to the model. Prompts are serialized,
so concurrent calls ask one after another.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import TextIO

from desktop.core.terminal_text import visible
from desktop.tools.approval import ApprovalDecision, ApprovalRequest

MAX_PREVIEW_LINES = 200
_TRIES = 3


def render_request(request: ApprovalRequest, max_lines: int = MAX_PREVIEW_LINES) -> str:
    """The request as terminal text (what came from the model or a server with its
    control characters written out: it cannot repaint the question)."""
    origin = ("" if request.source == "builtin"
              else f" (MCP server {visible(request.source, lines=False)})")
    lines = [f"\n⚠ The agent wants to use {visible(request.tool, lines=False)}{origin}"]
    preview = request.preview
    if preview.title:
        lines.append(f"  {visible(preview.title, lines=False)}")
    body = [visible(line, lines=False) for line in preview.text.split("\n")] or [""]
    if preview.kind == "command":
        body = [f"$ {line}" for line in body]
    if len(body) > max_lines:
        body = [*body[:max_lines], f"… ({len(body) - max_lines} more lines)"]
    lines += [f"  {line}" for line in body]
    if preview.error:
        lines.append(f"  ({visible(preview.error, lines=False)})")
    return "\n".join(lines) + "\n"


def parse_answer(answer: str, scope: str = "") -> ApprovalDecision | None:
    """The decision for a typed answer, or None if it is not understood. ``scope``:
    the scope ``s`` grants (the request's proposed one; none: ``s`` is not offered)."""
    text = answer.strip()
    word, _, rest = text.partition(" ")
    word = word.lower()
    if word in ("s", "scope") and scope:
        return ApprovalDecision.allow_always(scope)
    if word in ("y", "yes"):
        return ApprovalDecision.allow_once()
    if word in ("a", "always"):
        return ApprovalDecision.allow_always()
    if word in ("c", "chat"):
        return ApprovalDecision.allow_chat()
    if word in ("", "n", "no"):
        return ApprovalDecision.deny(rest.strip() or None)
    return None


class TerminalApprover:
    """An :data:`~desktop.tools.approval.Approver` that asks on the terminal."""

    def __init__(
        self, err: TextIO | None = None, read_line: Callable[[], str] | None = None
    ) -> None:
        self.err = err or sys.stderr
        self.read_line = read_line or sys.stdin.readline
        self._lock = asyncio.Lock()

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        async with self._lock:
            self.err.write(render_request(request))
            scope = request.proposed_scope if request.source == "builtin" else ""
            scoped = f" / [s]cope {visible(scope, lines=False)}" if scope else ""
            for _ in range(_TRIES):
                self.err.write(
                    f"Allow {visible(request.tool, lines=False)}? "
                    f"[y]es once / [c]hat / [a]lways{scoped} / [n]o (reason): "
                )
                self.err.flush()
                line = await asyncio.to_thread(self.read_line)
                if not line:  # end of input
                    self.err.write("\n")
                    return ApprovalDecision.deny("No answer from the terminal.")
                decision = parse_answer(line, scope)
                if decision is not None:
                    return decision
            return ApprovalDecision.deny(None)
