"""Asking for tool approval on a terminal (``assista ask`` with stdin a TTY).

The request (tool, where it comes from, and the preview: diff, command, URL or
arguments) is written to stderr, never stdout (stdout carries the answer).
Answers: ``y``/``yes`` allow once, ``a``/``always`` allow always (persisted; for the
built-in tools with scopes, within the proposed scope the prompt spells out, and not
offered when there is none), ``s``/``scope`` the same,
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
from desktop.tools.command_scopes import command_scope_kind
from desktop.tools.grant_scopes import always_scope, scope_kind

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


def describe_scope(tool: str, scope: str) -> str:
    """What a grant of ``scope`` covers, in a few words, for the prompt."""
    shown = visible(scope, lines=False)
    kind = scope_kind(tool)
    if kind == "path":
        return f"writes to paths matching {shown}"
    if kind == "host":
        return f"fetches from {shown}"
    if command_scope_kind(scope) == "program":
        return f"commands: {shown} with its read-only options"
    return f"exactly the command: {shown}"


def parse_answer(answer: str, scope: str | None = "") -> ApprovalDecision | None:
    """The decision for a typed answer, or None if it is not understood. ``scope``:
    what ``a`` grants ("": the whole tool; None: ``a`` is not offered)."""
    text = answer.strip()
    word, _, rest = text.partition(" ")
    word = word.lower()
    if word in ("y", "yes"):
        return ApprovalDecision.allow_once()
    if word in ("a", "always", "s", "scope"):
        if scope is None or (word in ("s", "scope") and not scope):
            return None
        return ApprovalDecision.allow_always(scope)
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
            scope = always_scope(request)
            if request.network:
                self.err.write("  [c]hat allows the network to this chat's commands "
                               "([y]es: to this command only)\n")
            elif scope:
                self.err.write(f"  [a]lways allows, in every chat: "
                               f"{describe_scope(request.tool, scope)}\n")
            elif scope is None:
                self.err.write("  (no [a]lways: this call cannot be granted for good)\n")
            always = "" if scope is None else " / [a]lways"
            for _ in range(_TRIES):
                self.err.write(
                    f"Allow {visible(request.tool, lines=False)}? "
                    f"[y]es once / [c]hat{always} / [n]o (reason): "
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
