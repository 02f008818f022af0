"""read_file: the text of one or more workspace files, optionally a line range of each."""

from __future__ import annotations

import asyncio
import codecs
import copy
import io
from collections.abc import Iterator
from typing import Any, BinaryIO

import msgspec

from desktop.core.errors import ToolError
from desktop.tools.builtins._common import SNIFF_BYTES, kib, looks_binary
from desktop.tools.errors import ToolFailure
from desktop.tools.registry import Tool, ToolContext
from desktop.tools.workspace import Workspace

NAME = "read_file"
TITLE = "Read file"  # shown to people (translated in the window)
MAX_FILES = 20
PER_FILE_CAP = 256 * 1024  # bytes of text returned per file
MIN_FILE_CAP = 4 * 1024  # never squeeze a file below this when sharing the result budget
MAX_SCAN_BYTES = 64 * 1024 * 1024  # stop counting lines after this much
MAX_TRANSCODE_BYTES = 8 * 1024 * 1024  # UTF-16/32 files are decoded in memory up to this
_CHUNK = 256 * 1024
_PER_FILE_OVERHEAD = 200
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

DESCRIPTION = (
    "Read text files from the workspace folder. Pass one or more files; for each, "
    "optionally give start_line and end_line (1-based, inclusive) to read only part of it. "
    "Each result has path, total_lines, start_line, end_line and content (or an error for "
    "that file alone). Long output is cut off with a note saying how to continue. "
    "Binary files cannot be read. Paths are relative to the workspace root."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "files": {
            "type": "array",
            "description": f"The files to read (at most {MAX_FILES}).",
            "minItems": 1,
            "maxItems": MAX_FILES,
            "items": {
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "minLength": 1,
                        "description": "File path relative to the workspace root.",
                    },
                    "start_line": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "First line to read (1-based). Default: 1.",
                    },
                    "end_line": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Last line to read, inclusive. Default: end of file.",
                    },
                },
                "required": ["path"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["files"],
    "additionalProperties": False,
}


def read_file_tool() -> Tool:
    return Tool(
        deferred_check=True,  # a constant schema (the tests check it)
        name=NAME, title=TITLE, description=DESCRIPTION, parameters=copy.deepcopy(PARAMETERS),
        needs_workspace=True,
        handler=_handle
    )


async def _handle(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    workspace = ctx.require_workspace()
    return await asyncio.to_thread(_read_all, workspace, args["files"], ctx)


def _read_all(
    workspace: Workspace, files: list[dict[str, Any]], ctx: ToolContext
) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    failures: list[ToolError] = []
    remaining = max(int(ctx.result_budget * 0.9) - _PER_FILE_OVERHEAD * len(files), 0)
    for index, spec in enumerate(files):
        ctx.raise_if_cancelled()
        cap = min(PER_FILE_CAP, max(remaining // (len(files) - index), MIN_FILE_CAP))
        try:
            try:
                entry = _read_one(workspace, spec, cap, ctx)
            except OSError as exc:  # the file went away or the disk failed mid-read
                reason = exc.strerror or type(exc).__name__
                raise ToolError(
                    f"Could not read '{spec['path']}': {reason}.", code="io_error"
                ) from exc
        except ToolError as exc:
            if exc.code == "cancelled":
                raise
            failures.append(exc)
            entry = {"path": spec["path"], "error": {"code": exc.code, "message": str(exc)}}
        remaining -= len(entry.get("content", ""))
        results.append(entry)
    if len(failures) == len(files):
        first = failures[0]
        same = all(f.code == first.code for f in failures)
        message = str(first) if len(files) == 1 else "None of the requested files could be read."
        raise ToolFailure(
            message, code=first.code if same else "read_failed", extra={"files": results}
        )
    return {"files": results}


class _Slice(msgspec.Struct):
    """What is read of one file: the bytes of a line range and how they were cut."""

    data: bytes
    total_lines: int | None  # None when the file was too large to count
    first: int | None  # first line included
    last: int  # last line included
    truncated: bool
    partial: bool  # only the beginning of one very long line is included


def _read_one(
    workspace: Workspace, spec: dict[str, Any], cap: int, ctx: ToolContext
) -> dict[str, Any]:
    path: str = spec["path"]
    start: int = spec.get("start_line") or 1
    end: int | None = spec.get("end_line")
    if end is not None and end < start:
        raise ToolError(f"end_line ({end}) is before start_line ({start}).", code="invalid_range")
    handle, st = workspace.open_file(path)
    with handle:
        piece = _slice(_text_chunks(handle, path), (start, end, cap), ctx, path)
    total = piece.total_lines
    if piece.first is None:
        if total is None:
            raise ToolError(
                f"'{path}' is larger than {kib(MAX_SCAN_BYTES)}; lines that far into it "
                "cannot be read.",
                code="too_large",
            )
        if total > 0 or start > 1:
            raise ToolError(
                f"start_line {start} is past the end of '{path}', which has {total} lines.",
                code="invalid_range",
            )
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(
        piece.data, final=not piece.truncated
    )
    entry: dict[str, Any] = {
        "path": path,
        "total_lines": total,
        "start_line": piece.first if piece.first is not None else 0,
        "end_line": piece.last,
        "size": st.st_size,
        "content": text,
    }
    notes: list[str] = []
    if piece.truncated:
        entry["truncated"] = True
        notes.append(_truncation_note(piece, cap))
    if total is None:
        notes.append(f"The file is larger than {kib(MAX_SCAN_BYTES)}, so total_lines is unknown.")
    if "\ufffd" in text and b"\xef\xbf\xbd" not in piece.data:
        notes.append("Some bytes are not valid UTF-8 and are shown as \ufffd.")
    if notes:
        entry["note"] = " ".join(notes)
    return entry


def _truncation_note(piece: _Slice, cap: int) -> str:
    if piece.partial:
        return (
            f"Output was capped at {kib(cap)}: line {piece.last} alone is longer than that, "
            "so only its beginning is shown."
        )
    return (
        f"Output was capped at {kib(cap)}; showing lines {piece.first}-{piece.last}. To read "
        f"more, call read_file again with start_line={piece.last + 1}."
    )


def _text_chunks(handle: BinaryIO, path: str) -> Iterator[bytes]:
    """The file as UTF-8 chunks: BOM removed, UTF-16/32 transcoded; binary files refused."""
    head = handle.read(SNIFF_BYTES)
    for bom, encoding in _WIDE_BOMS:
        if head.startswith(bom):
            raw = head + handle.read(MAX_TRANSCODE_BYTES + 1 - len(head))
            if len(raw) > MAX_TRANSCODE_BYTES:
                raise ToolError(
                    f"'{path}' is a {encoding.upper()} file larger than "
                    f"{kib(MAX_TRANSCODE_BYTES)}, which is too large to read.",
                    code="too_large",
                )
            try:
                text = raw.decode(encoding)
            except UnicodeDecodeError:
                raise _binary_error(path) from None
            return _chunks(io.BytesIO(text.encode("utf-8")), b"")
    if looks_binary(head):
        raise _binary_error(path)
    return _chunks(handle, head.removeprefix(codecs.BOM_UTF8))


def _chunks(stream: BinaryIO, first: bytes) -> Iterator[bytes]:
    if first:
        yield first
    while chunk := stream.read(_CHUNK):
        yield chunk


def _binary_error(path: str) -> ToolError:
    return ToolError(
        f"'{path}' looks like a binary file (it contains NUL bytes or is not UTF-8 text), "
        "so its content cannot be shown.",
        code="is_binary",
    )


class _Collector:
    """Collects lines ``start..end`` (at most ``cap`` bytes) while counting all lines."""

    def __init__(self, start: int, end: int | None, cap: int) -> None:
        self.start, self.end, self.cap = start, end, cap
        self.out = bytearray()
        self.line = 1  # number of the line the next byte belongs to
        self.first: int | None = None
        self.last = 0
        self.truncated = False
        self.partial = False
        self._line_offset = 0

    def _done(self) -> bool:
        return self.truncated or (self.end is not None and self.line > self.end)

    def feed(self, chunk: bytes) -> None:
        newlines = chunk.count(b"\n")
        if self._done() or self.line + newlines < self.start:
            self.line += newlines  # nothing to collect in this chunk: just count
            return
        pos = 0
        while pos < len(chunk):
            nl = chunk.find(b"\n", pos)
            seg_end = len(chunk) if nl == -1 else nl + 1
            if self.line >= self.start:
                self._take(chunk[pos:seg_end])
            if nl == -1:
                return
            self.line += 1
            pos = nl + 1
            if self._done():
                self.line += chunk.count(b"\n", pos)
                return

    def _take(self, segment: bytes) -> None:
        if self.last != self.line:  # the first bytes of a new line
            self._line_offset = len(self.out)
        room = self.cap - len(self.out)
        if len(segment) <= room:
            self.out += segment
            self.last = self.line
            if self.first is None:
                self.first = self.line
            return
        self.truncated = True
        if self.first is not None and self.first < self.line:
            del self.out[self._line_offset :]  # stop at a line boundary
            self.last = self.line - 1
            return
        # The first line alone is longer than the cap: keep its beginning.
        self.out += segment[:room]
        self.first = self.last = self.line
        self.partial = True


def _slice(
    chunks: Iterator[bytes], spec: tuple[int, int | None, int], ctx: ToolContext, path: str
) -> _Slice:
    """Lines ``start..end`` of the text in ``chunks`` (at most ``cap`` bytes), and the count."""
    start, end, cap = spec
    collector = _Collector(start, end, cap)
    ends_with_newline = True
    scanned = 0
    complete = True
    for chunk in chunks:
        ctx.raise_if_cancelled()
        if b"\x00" in chunk:
            raise _binary_error(path)
        scanned += len(chunk)
        ends_with_newline = chunk.endswith(b"\n")
        collector.feed(chunk)
        if scanned >= MAX_SCAN_BYTES and next(chunks, None) is not None:
            complete = False
            break
    total: int | None = None
    if complete:
        line = collector.line
        total = line - 1 if ends_with_newline else line
    return _Slice(
        bytes(collector.out),
        total,
        collector.first,
        collector.last,
        collector.truncated,
        collector.partial,
    )
