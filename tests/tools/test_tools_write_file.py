"""write_file / create_file: atomic writes, permissions, confinement and symlink races."""

from __future__ import annotations

import os
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.core.errors import ToolError
from desktop.tools import ToolContext, Workspace, safe_fs
from desktop.tools.builtins import write_file as write_module
from desktop.tools.builtins.write_file import write_file_tool

Call = Callable[..., Awaitable[dict[str, Any]]]
SECRET = "top secret\n"


async def test_create_then_overwrite_returns_diff(wcall: Call, root: Path) -> None:
    created = await wcall("write_file", {"path": "src/new/a.txt", "content": "one\ntwo\n"})
    assert created["status"] == "success"
    result = created["result"]
    assert result["created"] is True and result["path"] == "src/new/a.txt"
    assert (root / "src/new/a.txt").read_text() == "one\ntwo\n"
    replaced = (await wcall("write_file", {"path": "src/new/a.txt", "content": "one\n2\n"}))[
        "result"
    ]
    assert replaced["created"] is False
    assert "-two\n+2\n" in replaced["diff"]
    assert (replaced["lines_added"], replaced["lines_removed"]) == (1, 1)
    assert not [p for p in (root / "src/new").iterdir() if p.name.endswith(".assista-tmp")]


async def test_permissions_are_kept(wcall: Call, root: Path) -> None:
    script = root / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o750)
    await wcall("write_file", {"path": "run.sh", "content": "#!/bin/sh\necho hi\n"})
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert script.read_text().endswith("echo hi\n")


async def test_create_file_refuses_existing(wcall: Call, root: Path) -> None:
    (root / "a.txt").write_text("keep")
    payload = await wcall("create_file", {"path": "a.txt", "content": "new"})
    assert payload["error"]["code"] == "already_exists"
    assert (root / "a.txt").read_text() == "keep"
    fresh = await wcall("create_file", {"path": "b/c.txt", "content": "new"})
    assert fresh["result"] == {"path": "b/c.txt", "created": True, "bytes_written": 3}


async def test_binary_file_can_be_replaced(wcall: Call, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    payload = await wcall("write_file", {"path": "blob.bin", "content": "text now\n"})
    assert payload["status"] == "success"
    assert (root / "blob.bin").read_text() == "text now\n"


async def test_huge_content_is_refused_by_the_schema(wcall: Call, root: Path) -> None:
    big = "x" * (write_module.MAX_CONTENT_CHARS + 1)
    payload = await wcall("write_file", {"path": "big.txt", "content": big})
    assert payload["error"]["code"] == "invalid_arguments"
    assert not (root / "big.txt").exists()


async def test_large_file_diff_is_shortened(wcall: Call, root: Path) -> None:
    content = "".join(f"line {i}\n" for i in range(20_000))
    result = (await wcall("write_file", {"path": "big.txt", "content": content}))["result"]
    assert (root / "big.txt").read_text() == content
    assert len(result["diff"]) < write_module.DIFF_CHARS + 200
    assert result["lines_added"] == 20_000


@pytest.mark.parametrize("tool", ["write_file", "create_file"])
async def test_escapes_are_refused(wcall: Call, root: Path, tool: str) -> None:
    outside = root.parent / "outside"
    os.symlink(outside / "secret.txt", root / "link.txt")
    os.symlink(outside, root / "dirlink")
    for path in (
        "../outside/secret.txt",
        "../escaped.txt",
        str(outside / "secret.txt"),
        "/tmp/assista-escape-test.txt",
        "link.txt",
        "dirlink/secret.txt",
        "dirlink/new.txt",
    ):
        payload = await wcall(tool, {"path": path, "content": "pwned"})
        assert payload["error"]["code"] == "path_outside_workspace", (tool, path)
    assert (outside / "secret.txt").read_text() == SECRET
    assert not (outside / "new.txt").exists()
    assert not (root.parent / "escaped.txt").exists()
    assert not Path("/tmp/assista-escape-test.txt").exists()


async def test_file_swapped_for_symlink_between_check_and_use(
    wcall: Call, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check-then-use race on the file itself: the rename never writes through."""
    victim = root / "victim.txt"
    victim.write_text("fine")
    secret = root.parent / "outside" / "secret.txt"
    real_target = safe_fs.target

    def target_then_swap(workspace: Workspace, path: str) -> safe_fs.Target:
        found = real_target(workspace, path)
        if victim.exists() and not victim.is_symlink():
            victim.unlink()
            os.symlink(secret, victim)
        return found

    monkeypatch.setattr(safe_fs, "target", target_then_swap)
    payload = await wcall("write_file", {"path": "victim.txt", "content": "pwned"})
    assert payload["error"]["code"] == "path_outside_workspace"
    assert secret.read_text() == SECRET
    # the same race on the write itself (no preview first)
    victim.unlink()
    victim.write_text("fine")
    with pytest.raises(ToolError) as info:
        safe_fs.atomic_write(Workspace(root), "victim.txt", b"pwned")
    assert info.value.code == "path_outside_workspace"
    assert secret.read_text() == SECRET
    assert victim.is_symlink()  # left as the attacker made it, not followed


async def test_folder_swapped_for_symlink_between_check_and_use(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A parent folder becomes a symlink to outside after the path was resolved."""
    workspace = Workspace(root)
    (root / "sub").mkdir()
    outside = root.parent / "outside"
    real_target = safe_fs.target

    def target_then_swap(ws: Workspace, path: str) -> safe_fs.Target:
        found = real_target(ws, path)
        (root / "sub").rmdir()
        os.symlink(outside, root / "sub")
        return found

    monkeypatch.setattr(safe_fs, "target", target_then_swap)
    with pytest.raises(ToolError) as info:
        safe_fs.atomic_write(workspace, "sub/secret.txt", b"pwned")
    assert info.value.code == "path_outside_workspace"
    assert (outside / "secret.txt").read_text() == SECRET


async def test_preview_is_a_diff_and_writes_nothing(root: Path) -> None:
    (root / "a.txt").write_text("old\n")
    tool = write_file_tool()
    assert tool.preview is not None
    preview = await tool.preview(
        {"path": "a.txt", "content": "new\n"}, ToolContext(workspace=Workspace(root))
    )
    assert preview.kind == "diff" and preview.title == "Overwrite a.txt"
    assert (preview.title_code, preview.title_params) == ("overwrite", (("path", "a.txt"),))
    assert "-old\n+new\n" in preview.text
    assert (root / "a.txt").read_text() == "old\n"


async def test_path_that_is_a_folder(wcall: Call, root: Path) -> None:
    (root / "d").mkdir()
    assert (await wcall("write_file", {"path": "d", "content": "x"}))["error"]["code"] == (
        "not_a_file"
    )
    assert (await wcall("write_file", {"path": ".", "content": "x"}))["error"]["code"] == (
        "not_a_file"
    )
    (root / "f.txt").write_text("x")
    payload = await wcall("write_file", {"path": "f.txt/inner.txt", "content": "x"})
    assert payload["error"]["code"] == "not_a_directory"


async def test_no_workspace(tmp_path: Path) -> None:
    tool = write_file_tool()
    with pytest.raises(ToolError) as info:
        await tool.handler({"path": "a", "content": "b"}, ToolContext())
    assert info.value.code == "no_workspace"
