"""Text edits for edit_file: exact replacements, unified diffs, and diffs of the result.

All functions work on ``str`` and raise :class:`ToolError` with a message that
tells the model what to change (which hunk or string did not match, where the
ambiguous matches are, what the file really contains there).
"""

from __future__ import annotations

import difflib
import re

import msgspec

from desktop.core.errors import ToolError

_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_BARE_HUNK_RE = re.compile(r"^@@(?: .*)?$")
MAX_LISTED = 10


def newline_of(text: str) -> str:
    """The file's dominant line ending."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def make_diff(path: str, old: str | None, new: str, context: int = 3) -> str:
    """A unified diff from ``old`` (None: the file does not exist) to ``new``."""
    before = _mark_last([] if old is None else old.splitlines(keepends=True))
    after = _mark_last(new.splitlines(keepends=True))
    # Diff only the changed middle (plus context): difflib is slow on big files.
    start = 0
    limit = min(len(before), len(after))
    while start < limit and before[start] == after[start]:
        start += 1
    end = 0
    while end < limit - start and before[-1 - end] == after[-1 - end]:
        end += 1
    skip = max(start - context, 0)
    keep = max(end - context, 0)
    lines = difflib.unified_diff(
        before[skip : len(before) - keep],
        after[skip : len(after) - keep],
        fromfile="/dev/null" if old is None else f"a/{path}",
        tofile=f"b/{path}",
        n=context,
    )
    return "".join(_shift_hunk(line, skip) for line in lines)


def _shift_hunk(line: str, offset: int) -> str:
    """A hunk header with both line numbers moved down by ``offset``."""
    match = _HUNK_RE.match(line) if offset and line.startswith("@@") else None
    if match is None:
        return line

    def part(start: str, count: str | None) -> str:
        number = int(start) + offset
        return f"{number},{count}" if count is not None else str(number)

    old = part(match.group(1), match.group(2))
    new = part(match.group(3), match.group(4))
    return f"@@ -{old} +{new} @@{line[match.end() :]}"


def _mark_last(lines: list[str]) -> list[str]:
    if lines and not lines[-1].endswith("\n"):
        return [*lines[:-1], lines[-1] + "\n\\ No newline at end of file\n"]
    return lines


def diff_stats(diff: str) -> tuple[int, int]:
    """(lines added, lines removed) in a unified diff."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


# -- exact replacement -------------------------------------------------------------------


def replace_exact(
    text: str, old: str, new: str, *, replace_all: bool, path: str
) -> tuple[str, int]:
    """Replace ``old`` by ``new``; returns the new text and the number of replacements."""
    if not old:
        raise ToolError(
            "old_string is empty. To write a whole file use write_file; to add text, include "
            "a nearby line in old_string and repeat it in new_string with your addition.",
            code="invalid_edit",
        )
    if old == new:
        raise ToolError(
            "old_string and new_string are identical; nothing would change.", code="invalid_edit"
        )
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\r\n" not in old:
        crlf_old, crlf_new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        if text.count(crlf_old):
            old, new, count = crlf_old, crlf_new, text.count(crlf_old)
    if count == 0:
        raise ToolError(_not_found_message(text, old, path), code="no_match")
    if count > 1 and not replace_all:
        lines = _match_lines(text, old)
        listed = ", ".join(str(n) for n in lines[:MAX_LISTED])
        more = f" and {len(lines) - MAX_LISTED} more" if len(lines) > MAX_LISTED else ""
        raise ToolError(
            f"old_string occurs {count} times in '{path}' (starting on lines {listed}{more}), "
            "so the edit is ambiguous. Include more surrounding lines in old_string to make "
            "it unique, or set replace_all=true to change every occurrence.",
            code="ambiguous_edit",
        )
    return text.replace(old, new) if replace_all else text.replace(
        old, new, 1
    ), count if replace_all else 1


def _match_lines(text: str, needle: str) -> list[int]:
    found: list[int] = []
    start = 0
    while (index := text.find(needle, start)) != -1:
        found.append(text.count("\n", 0, index) + 1)
        start = index + max(len(needle), 1)
    return found


def _not_found_message(text: str, old: str, path: str) -> str:
    base = f"old_string was not found in '{path}'."
    squeeze = re.compile(r"\s+")
    if squeeze.sub(" ", old).strip() and squeeze.sub(" ", old).strip() in squeeze.sub(" ", text):
        return (
            f"{base} It matches only if whitespace is ignored: copy the exact indentation and "
            "line breaks from the file (read it again with read_file) and retry."
        )
    first = next((line for line in old.splitlines() if line.strip()), "")
    lines = text.splitlines()
    close = difflib.get_close_matches(first.strip(), [ln.strip() for ln in lines], n=3, cutoff=0.6)
    hints = []
    for candidate in close:
        number = next(i for i, ln in enumerate(lines, 1) if ln.strip() == candidate)
        hints.append(f"line {number}: {lines[number - 1][:200]!r}")
    if hints:
        return (
            f"{base} The most similar lines are {'; '.join(hints)}. Read the file again and "
            "copy old_string exactly, including whitespace."
        )
    return f"{base} Read the file again with read_file and copy old_string exactly."


# -- unified diffs -----------------------------------------------------------------------


class Hunk(msgspec.Struct):
    """One hunk of a unified diff: the lines it expects and the lines it puts instead."""

    number: int
    old_start: int | None  # 1-based line in the original, if the header gave one
    old: list[str] = msgspec.field(default_factory=list)  # context + removed lines, no endings
    new: list[str] = msgspec.field(default_factory=list)  # context + added lines, no endings


def parse_hunks(diff: str) -> list[Hunk]:
    hunks: list[Hunk] = []
    current: Hunk | None = None
    for raw in diff.splitlines():
        match = _HUNK_RE.match(raw)
        if match or _BARE_HUNK_RE.match(raw):
            start = int(match.group(1)) if match else None
            current = Hunk(number=len(hunks) + 1, old_start=start)
            hunks.append(current)
            continue
        if current is None or raw.startswith(("--- ", "+++ ", "diff --git", "index ")):
            continue
        if raw.startswith("\\"):
            continue  # "\ No newline at end of file"
        tag, body = (raw[:1], raw[1:]) if raw else (" ", "")
        if tag == " ":
            current.old.append(body)
            current.new.append(body)
        elif tag == "-":
            current.old.append(body)
        elif tag == "+":
            current.new.append(body)
        else:  # a context line that lost its leading space
            current.old.append(raw)
            current.new.append(raw)
    if not hunks or all(not h.old and not h.new for h in hunks):
        raise ToolError(
            "The diff has no hunks. Send a unified diff with '@@ -start,count +start,count @@' "
            "headers and lines starting with ' ', '-' or '+'; or use old_string/new_string.",
            code="invalid_diff",
        )
    return hunks


def apply_diff(text: str, diff: str, path: str) -> str:
    """Apply a unified diff to ``text``; every hunk must match exactly one place."""
    newline = newline_of(text)
    ends_with_newline = text.endswith(("\n", "\r"))
    lines = text.splitlines()
    offset = 0
    floor = 0
    for hunk in parse_hunks(diff):
        at = _locate(lines, hunk, offset, floor, path)
        lines[at : at + len(hunk.old)] = hunk.new
        if hunk.old_start is not None:
            offset = at - (hunk.old_start - 1) + len(hunk.new) - len(hunk.old)
        floor = at + len(hunk.new)
    result = newline.join(lines)
    if lines and (ends_with_newline or not text):
        result += newline
    return result


def _locate(lines: list[str], hunk: Hunk, offset: int, floor: int, path: str) -> int:
    if not hunk.old:  # pure insertion: at the stated line, or at the end
        if hunk.old_start is None:
            return len(lines)
        return min(max(hunk.old_start + offset, 0), len(lines))
    size = len(hunk.old)
    hint = None if hunk.old_start is None else max(hunk.old_start - 1 + offset, 0)
    if hint is not None and lines[hint : hint + size] == hunk.old:
        return hint
    for strict in (True, False):
        found = [
            i
            for i in range(floor, len(lines) - size + 1)
            if _same(lines[i : i + size], hunk.old, strict)
        ]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            if hint is not None:
                return min(found, key=lambda i: abs(i - hint))
            listed = ", ".join(str(i + 1) for i in found[:MAX_LISTED])
            raise ToolError(
                f"Hunk {hunk.number} of the diff matches {len(found)} places in '{path}' "
                f"(lines {listed}). Add line numbers to the @@ header or more context lines.",
                code="ambiguous_edit",
            )
    raise ToolError(_hunk_mismatch(lines, hunk, hint, path), code="no_match")


def _same(actual: list[str], expected: list[str], strict: bool) -> bool:
    if strict:
        return actual == expected
    return [a.rstrip() for a in actual] == [e.rstrip() for e in expected]


def _hunk_mismatch(lines: list[str], hunk: Hunk, hint: int | None, path: str) -> str:
    first = next((ln for ln in hunk.old if ln.strip()), hunk.old[0])
    where = ""
    if hint is not None and hint < len(lines):
        window = lines[hint : hint + min(len(hunk.old), 5)]
        shown = "\n".join(f"{hint + i + 1}: {ln[:200]}" for i, ln in enumerate(window))
        where = f" Lines {hint + 1}-{hint + len(window)} of the file are actually:\n{shown}\n"
    else:
        close = difflib.get_close_matches(first, lines, n=1, cutoff=0.6)
        if close:
            number = lines.index(close[0]) + 1
            where = f" The closest line is {number}: {close[0][:200]!r}."
    return (
        f"Hunk {hunk.number} of the diff does not match '{path}': its context and removed "
        f"lines (starting with {first[:200]!r}) were not found.{where} Read the file again "
        "and send a diff made against its current content, or use old_string/new_string."
    )
