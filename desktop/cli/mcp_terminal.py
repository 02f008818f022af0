"""Servers that ask, answered on the terminal (``assista ask``).

Elicitation: the server's message, then one question per field (its type and
whether it is required); an empty answer to the first question declines. Sampling:
the exact messages the server wants the model to answer, then "Allow? [y/N]".
Both read stdin only when it is a TTY; without one, elicitation is declined and
sampling denied (the server is told).
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Callable
from typing import TextIO

from desktop.core.messages import ImagePart, TextPart
from desktop.core.terminal_text import visible
from desktop.tools.mcp.server_requests import (
    ElicitationAnswer,
    ElicitationRequest,
    SamplingRequest,
    choices,
    coerce_answer,
)

ReadLine = Callable[[str], str]


class TerminalElicitor:
    def __init__(self, err: TextIO, read: ReadLine | None = None,
                 is_tty: Callable[[], bool] | None = None) -> None:
        self.err = err
        self._read = read or input
        self._is_tty = is_tty or sys.stdin.isatty

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        if not self._is_tty():
            return ElicitationAnswer.decline()
        return await asyncio.to_thread(self._ask, request)

    def _ask(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.err.write(f"\nMCP server {request.server!r} asks: {visible(request.message)}\n")
        if request.url is not None:
            self.err.write(f"It wants you to open {visible(request.url, lines=False)}\n")
            answer = self._read("Open it yourself, then confirm [y/N] ").strip().lower()
            return ElicitationAnswer("accept" if answer in ("y", "yes") else "decline")
        self.err.write("(an empty first answer declines)\n")
        raw: dict[str, str] = {}
        for index, (name, schema) in enumerate(request.fields.items()):
            raw[name] = self._read(question(name, schema, name in request.required))
            if index == 0 and not raw[name].strip() and "default" not in schema:
                return ElicitationAnswer.decline()
        while True:
            try:
                return ElicitationAnswer("accept", coerce_answer(request, raw))
            except ValueError as exc:
                name = re.split(r"[: ]", str(exc), maxsplit=1)[0]
                self.err.write(f"{visible(str(exc))}\n")
                schema = request.fields.get(name, {})
                raw[name] = self._read(question(name, schema, name in request.required))


def question(name: str, schema: dict[str, object], required: bool) -> str:
    """``Title (description; one of: a, b; default: a; optional): `` for one field."""
    label = str(schema.get("title") or name)
    hints = [str(schema.get("description") or schema.get("format") or schema.get("type", "text"))]
    allowed = choices(schema)
    if allowed:
        several = "several of" if schema.get("type") == "array" else "one of"
        hints.append(f"{several}: " + ", ".join(
            f"{n}) {title}" for n, (_v, title) in enumerate(allowed, 1)))
    for key, word in (("minimum", "at least"), ("maximum", "at most")):
        if key in schema:
            hints.append(f"{word} {schema[key]}")
    if "default" in schema:
        hints.append(f"default: {schema['default']}")
    if not required:
        hints.append("optional")
    return visible(f"{label} ({'; '.join(hints)}): ", lines=False)


class TerminalSamplingApprover:
    def __init__(self, err: TextIO, read: ReadLine | None = None,
                 is_tty: Callable[[], bool] | None = None) -> None:
        self.err = err
        self._read = read or input
        self._is_tty = is_tty or sys.stdin.isatty

    async def __call__(self, request: SamplingRequest) -> bool:
        if not self._is_tty():
            return False
        self.err.write(describe_sampling(request))
        answer = await asyncio.to_thread(self._read, "Allow? [y/N] ")
        return answer.strip().lower() in ("y", "yes")


def describe_sampling(request: SamplingRequest) -> str:
    """The request exactly as the model would get it, for the user to approve."""
    lines = [f"\nMCP server {request.server!r} asks the model to answer "
             f"(at most {request.max_tokens} tokens):"]
    if request.system_prompt:
        lines.append(f"[system] {visible(request.system_prompt)}")
    for message in request.messages:
        for part in message.parts:
            if isinstance(part, TextPart):
                lines.append(f"[{message.role}] {visible(part.text)}")
            elif isinstance(part, ImagePart):
                lines.append(f"[{message.role}] (an image, {visible(part.media_type)})")
    return "\n".join(lines) + "\n"
