"""list_directory: entries, ordering, recursion, caps, skipped folders, confinement."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

Call = Callable[..., Awaitable[dict[str, Any]]]  # the ``call`` fixture


async def listing(call: Call, **args: Any) -> dict[str, Any]:
    payload = await call("list_directory", args)
    assert payload["status"] == "success", payload
    result: dict[str, Any] = payload["result"]
    return result


def make_tree(root: Path) -> None:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "src" / "main.py").write_text("print()\n")
    (root / "docs").mkdir()
    (root / "README.md").write_text("# hi\n")
    (root / ".hidden").write_text("h")
    (root / "a.txt").write_text("12345")
    (root / ".git" / "objects").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref")
    (root / "node_modules" / "lib").mkdir(parents=True)


async def test_flat_listing_sorted_dirs_first(call: Call, root: Path) -> None:
    make_tree(root)
    result = await listing(call)
    assert result["path"] == "."
    assert [e["name"] for e in result["entries"]] == [
        ".git",
        "docs",
        "node_modules",
        "src",
        ".hidden",
        "a.txt",
        "README.md",
    ]
    by_name = {e["name"]: e for e in result["entries"]}
    assert by_name["a.txt"] == {"name": "a.txt", "type": "file", "size": 5}
    assert by_name["src"] == {"name": "src", "type": "dir"}
    assert result["truncated"] is False
    assert result["total_entries"] == 7


async def test_subdirectory_and_defaults(call: Call, root: Path) -> None:
    make_tree(root)
    result = await listing(call, path="src")
    assert result["path"] == "src"
    assert [e["name"] for e in result["entries"]] == ["pkg", "main.py"]
    assert (await listing(call, path=""))["path"] == "."


async def test_recursive_skips_heavy_folders(call: Call, root: Path) -> None:
    make_tree(root)
    result = await listing(call, recursive=True)
    names = [e["name"] for e in result["entries"]]
    assert names == [
        ".git",
        "docs",
        "node_modules",
        "src",
        ".hidden",
        "a.txt",
        "README.md",
        "src/pkg",
        "src/main.py",
        "src/pkg/mod.py",
    ]
    by_name = {e["name"]: e for e in result["entries"]}
    assert by_name[".git"]["skipped"] is True
    assert by_name["node_modules"]["skipped"] is True
    assert "skipped" not in by_name["src"]
    assert result["truncated"] is False


async def test_cap_sets_truncated(call: Call, root: Path) -> None:
    for i in range(30):
        (root / f"f{i:02}.txt").write_text("")
    result = await listing(call, max_entries=10)
    assert len(result["entries"]) == 10
    assert result["truncated"] is True
    assert result["total_entries"] == 30
    assert "max_entries" in result["note"]
    recursive = await listing(call, max_entries=10, recursive=True)
    assert len(recursive["entries"]) == 10
    assert recursive["truncated"] is True


async def test_symlinks_are_listed_not_followed(call: Call, root: Path) -> None:
    (root / "inner").mkdir()
    (root / "inner" / "x.txt").write_text("x")
    os.symlink(root.parent / "outside", root / "escape")
    os.symlink("inner", root / "inner-link")
    result = await listing(call, recursive=True)
    names = {e["name"]: e["type"] for e in result["entries"]}
    assert names == {
        "inner": "dir",
        "escape": "symlink",
        "inner-link": "symlink",
        "inner/x.txt": "file",
    }
    assert "secret" not in str(result)


async def test_directory_symlink_escape_is_refused(call: Call, root: Path) -> None:
    os.symlink(root.parent / "outside", root / "escape")
    for path in ("escape", "../outside", str(root.parent / "outside")):
        payload = await call("list_directory", {"path": path, "recursive": True})
        assert payload["error"]["code"] == "path_outside_workspace", path


async def test_errors(call: Call, root: Path) -> None:
    (root / "file.txt").write_text("x")
    missing = await call("list_directory", {"path": "nope"})
    assert missing["error"]["code"] == "not_found"
    not_dir = await call("list_directory", {"path": "file.txt"})
    assert not_dir["error"]["code"] == "not_a_directory"
    bad = await call("list_directory", {"max_entries": 0})
    assert bad["error"]["code"] == "invalid_arguments"
