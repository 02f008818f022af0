"""The JSON text of tool results, kept under a size cap.

Results are ``{"status":"success","result":...}`` or
``{"status":"error","error":{"code","message",...}}``, compact and with
``ensure_ascii=False``. A result larger than the cap is shrunk while staying
valid JSON with the same structure: the longest strings are shortened first,
then the longest lists; a ``truncated`` flag and a ``note`` tell the model.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import msgspec

DEFAULT_MAX_CHARS = 100_000
_NOTE_RESERVE = 400
_MIN_KEEP = 40  # never bother cutting a string by less than this
_MAX_ROUNDS = 6
_MAX_LIST_CUTS = 40
_LIST_MARKER = re.compile(r"^… \[(\d+) more items truncated\]$")


def dumps(value: Any) -> str:
    """Compact JSON; ``TypeError``/``ValueError`` for values JSON cannot hold."""
    return json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_default
    )


def _default(value: Any) -> Any:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


class ToolOutput(msgspec.Struct):
    """A handler result with data for the UI that the model does not get.

    ``result`` is encoded as usual; ``provider_data`` is stored on the
    ``ToolResultPart`` (e.g. ``{"images": [{"mime_type", "data"}]}`` with base64
    data from an MCP tool, so that the sidebar can show the pictures).
    """

    result: Any
    provider_data: dict[str, Any] = msgspec.field(default_factory=dict)


def success_content(result: Any, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    return capped({"status": "success", "result": result}, max_chars)


def error_content(error: dict[str, Any], max_chars: int = DEFAULT_MAX_CHARS) -> str:
    return capped({"status": "error", "error": error}, max_chars)


def denied_content(reason: str | None, message: str, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """``{"status":"denied","error":{"code":"denied","message":...,"reason":...}}``."""
    error: dict[str, Any] = {"code": "denied", "message": message}
    if reason:
        error["reason"] = reason
    return capped({"status": "denied", "error": error}, max_chars)


def capped(payload: dict[str, Any], max_chars: int) -> str:
    """``payload`` as JSON text of at most about ``max_chars`` characters."""
    text = dumps(payload)
    if len(text) <= max_chars:
        return text
    note = (
        f"The result was larger than {max_chars} characters and was shortened: long text "
        "fields and lists were cut where marked. Ask for less, e.g. a smaller line range "
        "or fewer results."
    )
    original: Any = json.loads(text)  # a private, plain-JSON copy to cut down
    original["truncated"] = True
    original["note"] = note
    target = max(max_chars - _NOTE_RESERVE, 0)
    work = original
    lengths = sorted((len(s) for s in _strings(original)), reverse=True)
    excess = 0
    for _ in range(_MAX_ROUNDS):
        over = len(dumps(work)) - target
        if over <= 0:
            return dumps(work)
        excess += over  # escaping makes JSON longer than the raw strings: go again
        limit = _cut_level(lengths, excess)
        if limit is None:
            break
        work = _cut_strings(original, limit)
    for _ in range(_MAX_LIST_CUTS):
        if len(dumps(work)) <= target:
            return dumps(work)
        if not _halve_longest_list(work):
            break
    text = dumps(work)
    if len(text) <= max_chars:
        return text
    return dumps(
        {
            "status": payload.get("status", "success"),
            "truncated": True,
            "note": note,
            "partial_json": text[:target],
        }
    )


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() if k != "note" for s in _strings(v)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _cut_level(lengths: list[int], excess: int) -> int | None:
    """The length L such that cutting every longer string to L frees ``excess`` characters.

    ``lengths`` is sorted longest first. None when no string is worth cutting.
    """
    if not lengths or lengths[0] <= 2 * _MIN_KEEP:
        return None
    total = 0
    for k, length in enumerate(lengths, start=1):
        total += length
        following = lengths[k] if k < len(lengths) else 0
        level = (total - excess) // k
        if level >= following:
            return max(level, _MIN_KEEP)
    return _MIN_KEEP


def _cut_strings(value: Any, limit: int) -> Any:
    if isinstance(value, str):
        if len(value) - limit <= _MIN_KEEP:
            return value
        return f"{value[:limit]}… [{len(value) - limit} more characters truncated]"
    if isinstance(value, dict):
        return {k: v if k == "note" else _cut_strings(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut_strings(item, limit) for item in value]
    return value


def _lists(value: Any) -> list[list[Any]]:
    found: list[list[Any]] = []
    if isinstance(value, dict):
        for item in value.values():
            found += _lists(item)
    elif isinstance(value, list):
        found.append(value)
        for item in value:
            found += _lists(item)
    return found


def _halve_longest_list(work: Any) -> bool:
    candidates = [lst for lst in _lists(work) if len(lst) > 1]
    if not candidates:
        return False
    longest = max(candidates, key=lambda lst: len(dumps(lst)))
    match = _LIST_MARKER.match(longest[-1]) if isinstance(longest[-1], str) else None
    real = len(longest) - (1 if match else 0)
    dropped = int(match.group(1)) if match else 0
    keep = max(real // 2, 1)
    if keep == real:
        return False
    dropped += real - keep
    del longest[keep:]
    longest.append(f"… [{dropped} more items truncated]")
    return True
