"""Helpers shared by the file tools: skipped folders, binary sniffing, glob patterns."""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable

from desktop.core.errors import ToolError

# Folders that are skipped when walking recursively: version control metadata,
# dependency trees, virtual environments and caches. They can hold hundreds of
# thousands of files the model almost never wants.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".bzr",
        "node_modules",
        "bower_components",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".gradle",
        ".next",
        ".nuxt",
        ".terraform",
    }
)

SNIFF_BYTES = 8192


def looks_binary(head: bytes) -> bool:
    """True for data with NUL bytes or bytes that are not UTF-8 (a cut-off tail is fine)."""
    if b"\x00" in head:
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(head.removeprefix(codecs.BOM_UTF8), final=False)
    except UnicodeDecodeError:
        return True
    return False


def kib(n: int) -> str:
    return f"{n // 1024} KB" if n >= 1024 else f"{n} bytes"


class GlobSet:
    """Glob patterns such as ``*.py``, ``src/**/*.ts``, ``*.{js,jsx}`` or ``*.md, docs/**``.

    Several patterns may be separated by commas. A pattern without ``/`` matches a
    file's name at any depth; one with ``/`` matches its path relative to the
    workspace root or to the folder being searched. ``*`` and ``?`` stay within
    one path segment, ``**`` spans any number of them, and ``dir/**`` also
    matches ``dir`` itself. Raises ``ValueError`` for a pattern that cannot compile.
    """

    def __init__(self, spec: str | None) -> None:
        self._name_patterns: list[re.Pattern[str]] = []
        self._path_patterns: list[re.Pattern[str]] = []
        for pattern in _split(spec or ""):
            for expanded in _expand_braces(pattern):
                cleaned = expanded.strip().removeprefix("./").rstrip("/")
                if not cleaned:
                    continue
                try:
                    compiled = re.compile(_translate(cleaned))
                except re.error as exc:
                    raise ValueError(f"Invalid glob pattern {expanded!r}: {exc}") from None
                if "/" in cleaned:
                    self._path_patterns.append(compiled)
                else:
                    self._name_patterns.append(compiled)

    def __bool__(self) -> bool:
        return bool(self._name_patterns or self._path_patterns)

    def matches(self, name: str, paths: Iterable[str]) -> bool:
        """Whether the entry called ``name``, at any of ``paths`` (``/``-separated), matches."""
        if any(p.match(name) for p in self._name_patterns):
            return True
        return any(p.match(path) for path in paths for p in self._path_patterns)


def _split(spec: str) -> list[str]:
    """Split on commas that are not inside braces."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in spec:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p for p in (part.strip() for part in parts) if p]


def _expand_braces(pattern: str, limit: int = 64) -> list[str]:
    """``a.{b,c}`` -> ``a.b``, ``a.c`` (innermost braces first, at most ``limit`` results)."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    results: list[str] = []
    for option in match.group(1).split(","):
        results += _expand_braces(head + option + tail, limit)
        if len(results) >= limit:
            break
    return results[:limit]


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("/**", i) and i + 3 == n:
            out.append("(?:/.*)?")
            break
        ch = pattern[i]
        if pattern.startswith("**", i):
            i += 2
            if i < n and pattern[i] == "/":
                out.append("(?:.*/)?")
                i += 1
            else:
                out.append(".*")
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            cls, i = _char_class(pattern, i)
            out.append(cls)
        else:
            out.append(re.escape(ch))
        i += 1
    return "(?s:" + "".join(out) + r")\Z"


def _char_class(pattern: str, i: int) -> tuple[str, int]:
    """The regex for the ``[...]`` class opening at ``i``, and the index of its ``]``."""
    start = i + 1
    if pattern.startswith("!", start):
        start += 1
    if pattern.startswith("]", start):
        start += 1
    end = pattern.find("]", start)
    if end == -1:
        return re.escape("["), i
    body = pattern[i + 1 : end].replace("\\", "\\\\").replace("[", "\\[")
    if body.startswith("!"):
        body = "^" + body[1:]
    elif body.startswith("^"):
        body = "\\" + body
    return "[" + body + "]", end


def decode_text(data: bytes, path: str) -> tuple[str, bool]:
    """UTF-8 text of a file for editing, and whether it had a BOM; binary files refused."""
    bom = data.startswith(codecs.BOM_UTF8)
    body = data[len(codecs.BOM_UTF8) :] if bom else data
    if b"\x00" in body[:SNIFF_BYTES]:
        raise ToolError(
            f"'{path}' is a binary file; it cannot be edited as text.", code="is_binary"
        )
    try:
        return body.decode("utf-8"), bom
    except UnicodeDecodeError:
        raise ToolError(
            f"'{path}' is not UTF-8 text; it cannot be edited with this tool.", code="is_binary"
        ) from None


def encode_text(text: str, bom: bool) -> bytes:
    return (codecs.BOM_UTF8 if bom else b"") + text.encode("utf-8")
