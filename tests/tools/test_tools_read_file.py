"""read_file: ranges, several files, caps, binary and encoding handling, confinement."""

from __future__ import annotations

import codecs
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.core.errors import ToolError
from desktop.core.messages import ToolCallPart
from desktop.tools import ToolContext, ToolExecutor, ToolFailure, Workspace, builtin_registry
from desktop.tools.builtins import read_file as read_file_module
from desktop.tools.builtins.read_file import PER_FILE_CAP

Call = Callable[..., Awaitable[dict[str, Any]]]  # the ``call`` fixture


def numbered(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


async def read(call: Call, *files: dict[str, Any]) -> dict[str, Any]:
    payload = await call("read_file", {"files": list(files)})
    assert payload["status"] == "success", payload
    result: dict[str, Any] = payload["result"]
    return result


async def test_whole_file(call: Call, root: Path) -> None:
    (root / "a.txt").write_text(numbered(3))
    result = await read(call, {"path": "a.txt"})
    assert result == {
        "files": [
            {
                "path": "a.txt",
                "total_lines": 3,
                "start_line": 1,
                "end_line": 3,
                "size": 21,
                "content": "line 1\nline 2\nline 3\n",
            }
        ]
    }


async def test_line_ranges(call: Call, root: Path) -> None:
    (root / "a.txt").write_text(numbered(10))
    (root / "b.txt").write_text("one\ntwo\nthree")  # no final newline
    result = await read(
        call,
        {"path": "a.txt", "start_line": 3, "end_line": 5},
        {"path": "a.txt", "start_line": 9},
        {"path": "a.txt", "end_line": 2},
        {"path": "a.txt", "start_line": 8, "end_line": 99},
        {"path": "b.txt", "start_line": 3},
    )
    files = result["files"]
    assert files[0]["content"] == "line 3\nline 4\nline 5\n"
    assert (files[0]["start_line"], files[0]["end_line"], files[0]["total_lines"]) == (3, 5, 10)
    assert files[1]["content"] == "line 9\nline 10\n"
    assert (files[1]["start_line"], files[1]["end_line"]) == (9, 10)
    assert files[2]["content"] == "line 1\nline 2\n"
    assert files[3]["end_line"] == 10
    assert files[4] | {"size": 0} == {
        "path": "b.txt",
        "total_lines": 3,
        "start_line": 3,
        "end_line": 3,
        "size": 0,
        "content": "three",
    }


async def test_bad_ranges_are_per_file_errors(call: Call, root: Path) -> None:
    (root / "a.txt").write_text(numbered(5))
    result = await read(
        call,
        {"path": "a.txt", "start_line": 6},
        {"path": "a.txt", "start_line": 4, "end_line": 2},
        {"path": "a.txt", "start_line": 5},
    )
    first, second, third = result["files"]
    assert first["error"]["code"] == "invalid_range"
    assert "5 lines" in first["error"]["message"]
    assert second["error"]["code"] == "invalid_range"
    assert third["content"] == "line 5\n"


async def test_empty_file(call: Call, root: Path) -> None:
    (root / "empty.txt").write_text("")
    [entry] = (await read(call, {"path": "empty.txt"}))["files"]
    assert (entry["total_lines"], entry["start_line"], entry["end_line"]) == (0, 0, 0)
    assert entry["content"] == ""


async def test_several_files_one_missing(call: Call, root: Path) -> None:
    (root / "a.txt").write_text("A\n")
    (root / "b.txt").write_text("B\n")
    result = await read(call, {"path": "a.txt"}, {"path": "missing.txt"}, {"path": "b.txt"})
    a, missing, b = result["files"]
    assert a["content"] == "A\n"
    assert b["content"] == "B\n"
    assert missing == {
        "path": "missing.txt",
        "error": {"code": "not_found", "message": "'missing.txt' does not exist."},
    }


async def test_single_missing_file_is_an_error_result(call: Call) -> None:
    payload = await call("read_file", {"files": [{"path": "missing.txt"}]})
    assert payload["status"] == "error"
    assert payload["error"]["code"] == "not_found"
    assert payload["error"]["files"][0]["path"] == "missing.txt"


async def test_all_files_failing_differently(call: Call, root: Path) -> None:
    (root / "d").mkdir()
    payload = await call("read_file", {"files": [{"path": "missing"}, {"path": "d"}]})
    assert payload["error"]["code"] == "read_failed"
    assert [f["error"]["code"] for f in payload["error"]["files"]] == ["not_found", "not_a_file"]


async def test_escape_attempts_are_refused(call: Call, root: Path) -> None:
    outside = root.parent / "outside"
    os.symlink(outside / "secret.txt", root / "out-link.txt")
    os.symlink(outside, root / "out-dir")
    (root / "ok.txt").write_text("fine\n")
    result = await read(
        call,
        {"path": "../outside/secret.txt"},
        {"path": str(outside / "secret.txt")},
        {"path": "out-link.txt"},
        {"path": "out-dir/secret.txt"},
        {"path": "ok.txt"},
    )
    *refused, ok = result["files"]
    for entry in refused:
        assert entry["error"]["code"] == "path_outside_workspace", entry
        assert "content" not in entry
    assert ok["content"] == "fine\n"
    assert "top secret" not in str(result)


async def test_symlink_inside_pointing_inside_is_read(call: Call, root: Path) -> None:
    (root / "real.txt").write_text("real\n")
    os.symlink("real.txt", root / "alias.txt")
    [entry] = (await read(call, {"path": "alias.txt"}))["files"]
    assert entry["content"] == "real\n"


async def test_binary_files_are_refused(call: Call, root: Path) -> None:
    (root / "nul.bin").write_bytes(b"abc\x00def")
    (root / "latin1.txt").write_bytes("caf\xe9 cr\xe8me\n".encode("latin-1"))
    (root / "late-nul.bin").write_bytes(b"x" * 20_000 + b"\x00")
    names = ["nul.bin", "latin1.txt", "late-nul.bin"]
    payload = await call("read_file", {"files": [{"path": n} for n in names]})
    assert payload["error"]["code"] == "is_binary"
    for entry in payload["error"]["files"]:
        assert entry["error"]["code"] == "is_binary"
        assert "binary" in entry["error"]["message"]


async def test_text_encodings(call: Call, root: Path) -> None:
    (root / "bom.txt").write_bytes(codecs.BOM_UTF8 + "héllo\n".encode())
    (root / "utf16.txt").write_bytes("hé\nwörld\n".encode("utf-16"))
    (root / "crlf.txt").write_bytes(b"a\r\nb\r\n")
    bom, utf16, crlf = (
        await read(call, {"path": "bom.txt"}, {"path": "utf16.txt"}, {"path": "crlf.txt"})
    )["files"]
    assert bom["content"] == "héllo\n"
    assert utf16["content"] == "hé\nwörld\n"
    assert utf16["total_lines"] == 2
    assert crlf["content"] == "a\r\nb\r\n"


async def test_huge_file_is_truncated_with_a_note(
    workspace: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Directly against the handler, so the executor's own result cap does not interfere."""
    (root / "big.txt").write_text(numbered(100_000))  # ~1.1 MB
    tool = builtin_registry().get("read_file")
    assert tool is not None
    ctx = ToolContext(workspace=workspace, result_budget=10_000_000)
    result = await tool.handler({"files": [{"path": "big.txt"}]}, ctx)
    [entry] = result["files"]
    assert entry["truncated"] is True
    assert len(entry["content"].encode()) <= PER_FILE_CAP
    assert entry["total_lines"] == 100_000
    last = entry["end_line"]
    assert entry["content"].endswith(f"\nline {last}\n")  # cut at a line boundary
    assert f"start_line={last + 1}" in entry["note"]
    more = await tool.handler({"files": [{"path": "big.txt", "start_line": last + 1}]}, ctx)
    assert more["files"][0]["content"].startswith(f"line {last + 1}\n")


async def test_single_giant_line(workspace: Workspace, root: Path) -> None:
    (root / "min.js").write_text("x" * (PER_FILE_CAP + 10))
    tool = builtin_registry().get("read_file")
    assert tool is not None
    ctx = ToolContext(workspace=workspace, result_budget=10_000_000)
    [entry] = (await tool.handler({"files": [{"path": "min.js"}]}, ctx))["files"]
    assert entry["truncated"] is True
    assert (entry["start_line"], entry["end_line"], entry["total_lines"]) == (1, 1, 1)
    assert len(entry["content"]) == PER_FILE_CAP
    assert "only its beginning" in entry["note"]


async def test_output_shares_the_result_budget(call: Call, root: Path) -> None:
    """Through the executor (100 000 character cap): both files fit, each cut with a note."""
    for name in ("a.txt", "b.txt"):
        (root / name).write_text(numbered(20_000))  # ~200 KB each
    result = await read(call, {"path": "a.txt"}, {"path": "b.txt"})
    for entry in result["files"]:
        assert entry["truncated"] is True
        assert entry["content"].startswith("line 1\n")
        assert entry["content"].endswith(f"\nline {entry['end_line']}\n")
        assert f"start_line={entry['end_line'] + 1}" in entry["note"]


async def test_huge_file_through_executor_stays_under_cap(root: Path, workspace: Workspace) -> None:
    (root / "big.txt").write_text('"quoted"\n' * 100_000)  # escaping grows the JSON
    executor = ToolExecutor(builtin_registry(), workspace, max_result_chars=50_000)
    part = await executor.run(
        ToolCallPart(id="c", name="read_file", arguments='{"files":[{"path":"big.txt"}]}')
    )
    assert not part.is_error
    assert len(part.content) <= 50_000


async def test_line_count_gives_up_on_enormous_files(
    workspace: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read_file_module, "MAX_SCAN_BYTES", 1024)
    monkeypatch.setattr(read_file_module, "_CHUNK", 512)
    (root / "big.txt").write_text(numbered(2_000))
    tool = builtin_registry().get("read_file")
    assert tool is not None
    ctx = ToolContext(workspace=workspace)
    [entry] = (await tool.handler({"files": [{"path": "big.txt", "end_line": 2}]}, ctx))["files"]
    assert entry["total_lines"] is None
    assert entry["content"] == "line 1\nline 2\n"
    assert "total_lines is unknown" in entry["note"]
    with pytest.raises(ToolFailure) as info:
        await tool.handler({"files": [{"path": "big.txt", "start_line": 1_900}]}, ctx)
    assert info.value.code == "too_large"


async def test_no_workspace(executor: ToolExecutor, call: Call) -> None:
    executor.workspace = None
    payload = await call("read_file", {"files": [{"path": "a.txt"}]})
    assert payload["error"]["code"] == "no_workspace"
    assert "No workspace folder is selected" in payload["error"]["message"]


async def test_schema_rejects_bad_input(call: Call) -> None:
    payload = await call("read_file", {"files": [{"path": "a.txt", "start_line": 0}]})
    assert payload["error"]["code"] == "invalid_arguments"
    assert payload["error"]["details"][0]["path"] == "/files/0/start_line"


async def test_worker_stops_once_cancelled(workspace: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    tool = builtin_registry().get("read_file")
    assert tool is not None
    ctx = ToolContext(workspace=workspace)
    ctx.cancel_event.set()  # what the executor does on timeout or cancellation
    with pytest.raises(ToolError) as info:
        await tool.handler({"files": [{"path": "a.txt"}]}, ctx)
    assert info.value.code == "cancelled"
