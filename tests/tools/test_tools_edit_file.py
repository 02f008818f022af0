"""edit_file: exact replacements, unified diffs, clear refusals, confinement, concurrency."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.core.messages import ToolCallPart
from desktop.tools import ToolContext, ToolExecutor, Workspace, builtin_registry, safe_fs
from desktop.tools.approval import allow_all
from desktop.tools.builtins.edit_file import edit_file_tool

Call = Callable[..., Awaitable[dict[str, Any]]]

CODE = "def greet(name):\n    print('hello', name)\n\n\ndef main():\n    greet('world')\n"


@pytest.fixture
def code(root: Path) -> Path:
    path = root / "app.py"
    path.write_text(CODE)
    return path


async def test_exact_replacement_returns_the_diff(wcall: Call, code: Path) -> None:
    payload = await wcall(
        "edit_file",
        {"path": "app.py", "old_string": "print('hello', name)", "new_string": "print('hi', name)"},
    )
    result = payload["result"]
    assert code.read_text() == CODE.replace("'hello'", "'hi'")
    assert result["path"] == "app.py" and result["replacements"] == 1
    assert "-    print('hello', name)\n+    print('hi', name)\n" in result["diff"]
    assert result["diff"].startswith("--- a/app.py\n+++ b/app.py\n@@ -1,")
    assert (result["lines_added"], result["lines_removed"]) == (1, 1)


async def test_ambiguous_edit_is_refused_with_line_numbers(wcall: Call, code: Path) -> None:
    payload = await wcall("edit_file", {"path": "app.py", "old_string": "greet", "new_string": "x"})
    error = payload["error"]
    assert error["code"] == "ambiguous_edit"
    assert "2 times" in error["message"] and "lines 1, 6" in error["message"]
    assert "replace_all" in error["message"]
    assert code.read_text() == CODE
    every = await wcall(
        "edit_file",
        {"path": "app.py", "old_string": "greet", "new_string": "salute", "replace_all": True},
    )
    assert every["result"]["replacements"] == 2
    assert code.read_text().count("salute") == 2


async def test_non_matching_edit_points_at_the_closest_line(wcall: Call, code: Path) -> None:
    payload = await wcall(
        "edit_file",
        {"path": "app.py", "old_string": "print('helo', name)", "new_string": "x"},
    )
    assert payload["error"]["code"] == "no_match"
    assert "line 2" in payload["error"]["message"]
    whitespace = await wcall(
        "edit_file",
        {"path": "app.py", "old_string": "def   main():\n  greet('world')", "new_string": "x"},
    )
    assert "whitespace" in whitespace["error"]["message"]
    assert code.read_text() == CODE


async def test_edits_are_all_or_nothing(wcall: Call, code: Path) -> None:
    payload = await wcall(
        "edit_file",
        {
            "path": "app.py",
            "edits": [
                {"old_string": "def main():", "new_string": "def run():"},
                {"old_string": "not there", "new_string": "x"},
            ],
        },
    )
    assert payload["error"]["code"] == "no_match"
    assert payload["error"]["message"].startswith("Edit 2 of 2:")
    assert code.read_text() == CODE
    ok = await wcall(
        "edit_file",
        {
            "path": "app.py",
            "edits": [
                {"old_string": "def main():", "new_string": "def run():"},
                {"old_string": "greet('world')", "new_string": "greet('you')"},
            ],
        },
    )
    assert ok["result"]["replacements"] == 2
    assert "def run():\n    greet('you')" in code.read_text()


async def test_unified_diff(wcall: Call, code: Path) -> None:
    diff = (
        "--- a/app.py\n+++ b/app.py\n"
        "@@ -4,3 +4,4 @@\n \n def main():\n-    greet('world')\n+    greet('world')\n"
        "+    greet('again')\n"
    )
    payload = await wcall("edit_file", {"path": "app.py", "diff": diff})
    assert payload["status"] == "success", payload
    assert code.read_text().endswith("    greet('world')\n    greet('again')\n")
    stale = await wcall("edit_file", {"path": "app.py", "diff": diff.replace("world", "earth")})
    assert stale["error"]["code"] == "no_match"
    assert "Hunk 1" in stale["error"]["message"]


async def test_diff_with_wrong_line_numbers_and_no_header(wcall: Call, code: Path) -> None:
    shifted = "@@ -40,2 +40,2 @@\n def greet(name):\n-    print('hello', name)\n+    print(name)\n"
    assert (await wcall("edit_file", {"path": "app.py", "diff": shifted}))["status"] == "success"
    assert "    print(name)\n" in code.read_text()
    bare = "@@\n-def main():\n+def start():\n"
    assert (await wcall("edit_file", {"path": "app.py", "diff": bare}))["status"] == "success"
    assert "def start():" in code.read_text()
    junk = await wcall("edit_file", {"path": "app.py", "diff": "not a diff"})
    assert junk["error"]["code"] == "invalid_diff"


async def test_mode_must_be_unique(wcall: Call, code: Path) -> None:
    both = await wcall(
        "edit_file", {"path": "app.py", "old_string": "a", "new_string": "b", "diff": "@@\n-a\n+b"}
    )
    assert both["error"]["code"] == "invalid_edit"
    half = await wcall("edit_file", {"path": "app.py", "old_string": "a"})
    assert half["error"]["code"] == "invalid_edit"
    same = await wcall("edit_file", {"path": "app.py", "old_string": "main", "new_string": "main"})
    assert same["error"]["code"] == "invalid_edit"


async def test_crlf_and_bom_are_preserved(wcall: Call, root: Path) -> None:
    path = root / "win.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    payload = await wcall(
        "edit_file", {"path": "win.txt", "old_string": "one\ntwo", "new_string": "one\n2"}
    )
    assert payload["status"] == "success", payload
    assert path.read_bytes() == b"\xef\xbb\xbfone\r\n2\r\nthree\r\n"
    diff = "@@ -3 +3 @@\n-three\n+3\n"
    assert (await wcall("edit_file", {"path": "win.txt", "diff": diff}))["status"] == "success"
    assert path.read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n3\r\n"


async def test_binary_huge_and_missing_files(
    wcall: Call, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    binary = await wcall("edit_file", {"path": "img.png", "old_string": "PNG", "new_string": "x"})
    assert binary["error"]["code"] == "is_binary"
    monkeypatch.setattr(safe_fs, "MAX_EDIT_BYTES", 1_000)
    monkeypatch.setattr(safe_fs.read_existing, "__defaults__", (1_000,))
    (root / "big.txt").write_text("x\n" * 1_000)
    big = await wcall("edit_file", {"path": "big.txt", "old_string": "x", "new_string": "y"})
    assert big["error"]["code"] == "too_large"
    missing = await wcall("edit_file", {"path": "nope.txt", "old_string": "a", "new_string": "b"})
    assert missing["error"]["code"] == "not_found"
    assert "create_file" in missing["error"]["message"]


async def test_escapes_are_refused(wcall: Call, root: Path) -> None:
    outside = root.parent / "outside"
    os.symlink(outside / "secret.txt", root / "link.txt")
    os.symlink(outside, root / "dirlink")
    for path in (
        "../outside/secret.txt",
        str(outside / "secret.txt"),
        "link.txt",
        "dirlink/secret.txt",
    ):
        payload = await wcall(
            "edit_file", {"path": path, "old_string": "top secret", "new_string": "pwned"}
        )
        assert payload["error"]["code"] == "path_outside_workspace", path
    assert (outside / "secret.txt").read_text() == "top secret\n"


async def test_file_swapped_for_symlink_before_reading(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = root / "victim.txt"
    victim.write_text("top secret\n")  # same text as the secret, so a followed link would match
    secret = root.parent / "outside" / "secret.txt"
    real_target = safe_fs.target

    def target_then_swap(workspace: Workspace, path: str) -> safe_fs.Target:
        found = real_target(workspace, path)
        if not victim.is_symlink():
            victim.unlink()
            os.symlink(secret, victim)
        return found

    monkeypatch.setattr(safe_fs, "target", target_then_swap)
    executor = ToolExecutor(builtin_registry(), Workspace(root), approver=allow_all)
    args = {"path": "victim.txt", "old_string": "top secret", "new_string": "pwned"}
    part = await executor.run(ToolCallPart(id="c", name="edit_file", arguments=json.dumps(args)))
    assert json.loads(part.content)["error"]["code"] == "path_outside_workspace"
    assert secret.read_text() == "top secret\n"


async def test_concurrent_edits_to_one_file_lose_nothing(root: Path) -> None:
    """20 edits of one file from one model message: serialized by the path lock."""
    lines = [f"item {i}: todo" for i in range(20)]
    (root / "list.txt").write_text("\n".join(lines) + "\n")
    executor = ToolExecutor(builtin_registry(), Workspace(root), approver=allow_all)
    calls = [
        ToolCallPart(
            id=f"c{i}",
            name="edit_file",
            arguments=json.dumps(
                {
                    "path": "list.txt",
                    "old_string": f"item {i}: todo",
                    "new_string": f"item {i}: done",
                }
            ),
        )
        for i in range(20)
    ]
    parts = await asyncio.gather(*(executor.run(c) for c in calls))
    assert [p.status for p in parts] == ["succeeded"] * 20
    assert [p.tool_call_id for p in parts] == [f"c{i}" for i in range(20)]
    assert (root / "list.txt").read_text() == "".join(f"item {i}: done\n" for i in range(20))


async def test_preview_is_the_diff_without_writing(code: Path, root: Path) -> None:
    tool = edit_file_tool()
    assert tool.preview is not None
    args = {"path": "app.py", "old_string": "def main():", "new_string": "def run():"}
    preview = await tool.preview(args, ToolContext(workspace=Workspace(root)))
    assert preview.kind == "diff" and preview.title == "Edit app.py"
    assert (preview.title_code, preview.title_params) == ("edit", (("path", "app.py"),))
    assert "-def main():\n+def run():\n" in preview.text
    assert code.read_text() == CODE
