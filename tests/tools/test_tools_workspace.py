"""Workspace confinement: resolving, refusing escapes, opening files safely."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop.core.errors import ToolError
from desktop.tools import ToolContext, Workspace


def test_missing_root_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as info:
        Workspace(tmp_path / "nope")
    assert info.value.code == "workspace_unavailable"


def test_relative_and_absolute_paths_inside(workspace: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("x")
    assert workspace.resolve("a.txt") == root.resolve() / "a.txt"
    assert workspace.resolve(str(root / "a.txt")) == root.resolve() / "a.txt"
    assert workspace.resolve("") == root.resolve()
    assert workspace.resolve("sub/../a.txt") == root.resolve() / "a.txt"
    assert workspace.relative(workspace.resolve("sub/x.txt")) == "sub/x.txt"
    assert workspace.relative(workspace.root) == "."


@pytest.mark.parametrize("path", ["../x", "..", "a/../../x", "/etc/passwd"])
def test_escapes_are_refused(workspace: Workspace, path: str) -> None:
    with pytest.raises(ToolError) as info:
        workspace.resolve(path)
    assert info.value.code == "path_outside_workspace"
    assert "outside the workspace" in str(info.value)


def test_absolute_path_of_sibling_folder_is_refused(workspace: Workspace, root: Path) -> None:
    with pytest.raises(ToolError) as info:
        workspace.resolve(str(root.parent / "outside" / "secret.txt"))
    assert info.value.code == "path_outside_workspace"


def test_prefix_sibling_is_not_inside(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws-other").mkdir()
    ws = Workspace(tmp_path / "ws")
    with pytest.raises(ToolError):
        ws.resolve("../ws-other/file")


def test_symlink_pointing_out_is_refused(workspace: Workspace, root: Path) -> None:
    os.symlink(root.parent / "outside" / "secret.txt", root / "link.txt")
    os.symlink(root.parent / "outside", root / "dirlink")
    for path in ("link.txt", "dirlink", "dirlink/secret.txt"):
        with pytest.raises(ToolError) as info:
            workspace.resolve(path)
        assert info.value.code == "path_outside_workspace"
        assert "symbolic link" in str(info.value)


def test_symlink_pointing_inside_is_allowed(workspace: Workspace, root: Path) -> None:
    (root / "real.txt").write_text("hello")
    os.symlink("real.txt", root / "alias.txt")
    handle, _ = workspace.open_file("alias.txt")
    with handle:
        assert handle.read() == b"hello"


def test_workspace_root_given_through_a_symlink(tmp_path: Path, root: Path) -> None:
    os.symlink(root, tmp_path / "ws-link")
    ws = Workspace(tmp_path / "ws-link")
    (root / "a.txt").write_text("x")
    assert ws.resolve(str(tmp_path / "ws-link" / "a.txt")) == root.resolve() / "a.txt"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_open_file_errors(workspace: Workspace, root: Path) -> None:
    (root / "d").mkdir()
    os.mkfifo(root / "fifo")  # must be refused without blocking on open
    cases = {"missing.txt": "not_found", "d": "not_a_file", "fifo": "not_a_file"}
    for path, code in cases.items():
        with pytest.raises(ToolError) as info:
            workspace.open_file(path)
        assert info.value.code == code, path


def test_nul_in_path_is_invalid(workspace: Workspace) -> None:
    with pytest.raises(ToolError) as info:
        workspace.resolve("a\x00b")
    assert info.value.code == "invalid_path"


def test_open_refuses_a_symlink_swapped_in_after_resolving(
    workspace: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check-then-use race: the final component becomes a symlink after the check."""
    target = root / "victim.txt"
    target.write_text("fine")
    real_resolve = Workspace.resolve

    def resolve_then_swap(self: Workspace, path: str) -> Path:
        resolved = real_resolve(self, path)
        target.unlink()
        os.symlink(root.parent / "outside" / "secret.txt", target)
        return resolved

    monkeypatch.setattr(Workspace, "resolve", resolve_then_swap)
    with pytest.raises(ToolError) as info:
        workspace.open_file("victim.txt")
    assert info.value.code == "path_outside_workspace"


def test_context_without_workspace_explains() -> None:
    with pytest.raises(ToolError) as info:
        ToolContext().require_workspace()
    assert info.value.code == "no_workspace"
    assert "No workspace folder is selected" in str(info.value)
