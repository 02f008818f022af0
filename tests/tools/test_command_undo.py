"""Undo covers commands: a run_command call (under real bubblewrap, and with the sandbox
off) that creates, changes and deletes files is put back by the turn's undo; a file the
user changed since makes the undo refuse and name it; a turn that wrote a file and then
ran a command on it goes back to before the turn; version-control and cache folders are
not walked."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from desktop.core.messages import ToolCallPart
from desktop.tools import ToolExecutor, Workspace, builtin_registry
from desktop.tools.approval import allow_all
from desktop.tools.checkpoints import CheckpointStore, TurnChanges, UndoRefused
from desktop.tools.sandbox import bwrap_problem
from desktop.tools.trust import ToolTrust
from desktop.tools.workspace_snapshot import WorkspaceSnapshots
from tests.tools.test_tools_run_command import call, payload


@pytest.fixture(autouse=True)
def _bubblewrap() -> None:
    if bwrap_problem() is not None:  # .ci/run installs it: a failure there, not a skip
        pytest.fail(f"no sandbox on this machine: {bwrap_problem()}")


def run_turn(store: CheckpointStore, root: Path, calls: list[ToolCallPart],
             trust: ToolTrust | None = None) -> TurnChanges:
    executor = ToolExecutor(builtin_registry(), Workspace(root), approver=allow_all,
                            trust=trust or ToolTrust(),
                            checkpoint=store.begin("s1", "q1"))

    async def go() -> None:
        for part in calls:
            result = payload(await executor.run(part))
            assert "result" in result, result
    asyncio.run(go())
    found = store.find("s1")
    assert found is not None
    return found


def workspace(root: Path) -> None:
    (root / "keep.txt").write_text("kept\n")
    (root / "change.txt").write_text("old\n")
    (root / "gone.txt").write_text("deleted by the command\n")
    (root / "tool.sh").write_text("#!/bin/sh\n")
    (root / "tool.sh").chmod(0o755)


CHANGES = ("echo new >> change.txt; rm gone.txt tool.sh; mkdir -p made/deep; "
           "echo hi > made/deep/new.txt; echo top > top.txt")


@pytest.mark.parametrize("sandbox", [True, False], ids=["bubblewrap", "sandbox-off"])
def test_a_commands_changes_are_undone(tmp_path: Path, root: Path, sandbox: bool) -> None:
    workspace(root)
    store = CheckpointStore(tmp_path / "data" / "checkpoints")
    turn = run_turn(store, root, [call(CHANGES)], ToolTrust(command_sandbox=sandbox))
    assert (root / "change.txt").read_text() == "old\nnew\n" and not (root / "gone.txt").exists()
    done = {(Path(r.path).relative_to(root.resolve()).as_posix(), r.action)
            for r in store.undo(turn)}
    assert done == {("change.txt", "restored"), ("gone.txt", "restored"),
                    ("tool.sh", "restored"), ("made/deep/new.txt", "deleted"),
                    ("top.txt", "deleted")}
    assert (root / "change.txt").read_text() == "old\n"
    assert (root / "gone.txt").read_text() == "deleted by the command\n"
    assert (root / "tool.sh").stat().st_mode & 0o777 == 0o755
    assert not (root / "made").exists() and not (root / "top.txt").exists()
    assert sorted(p.name for p in root.iterdir()) == ["change.txt", "gone.txt", "keep.txt",
                                                      "tool.sh"]


def test_a_file_the_user_changed_since_refuses_the_undo_and_is_named(
        tmp_path: Path, root: Path) -> None:
    workspace(root)
    store = CheckpointStore(tmp_path / "data" / "checkpoints")
    turn = run_turn(store, root, [call(CHANGES)])
    (root / "top.txt").write_text("the user's now\n")
    with pytest.raises(UndoRefused, match="changed since") as refused:
        store.undo(turn)
    assert str((root / "top.txt").resolve()) in str(refused.value)
    assert "change.txt" not in str(refused.value)
    assert (root / "change.txt").read_text() == "old\nnew\n"  # nothing was touched
    assert (root / "made" / "deep" / "new.txt").exists()


def test_a_write_then_a_command_on_the_same_file_undo_to_before_the_turn(
        tmp_path: Path, root: Path) -> None:
    (root / "a.txt").write_text("before the turn\n")
    store = CheckpointStore(tmp_path / "data" / "checkpoints")
    write = ToolCallPart(id="w1", name="write_file", arguments=json.dumps(
        {"path": "a.txt", "content": "written by the tool\n"}))
    turn = run_turn(store, root, [write, call("echo appended >> a.txt; echo x > b.txt",
                                              "c1"),
                                  ToolCallPart(id="w2", name="write_file", arguments=json.dumps(
                                      {"path": "b.txt", "content": "rewritten\n"}))])
    assert (root / "a.txt").read_text() == "written by the tool\nappended\n"
    assert turn.call_ids == ["w1", "c1", "w2"]
    store.undo(turn)
    assert (root / "a.txt").read_text() == "before the turn\n"
    assert not (root / "b.txt").exists()


def test_git_and_cache_folders_are_not_walked_and_a_second_walk_copies_nothing(
        tmp_path: Path, root: Path) -> None:
    workspace(root)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "cache").mkdir()
    (root / "cache" / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55")
    (root / "cache" / "big.bin").write_bytes(b"z" * 1000)
    store = CheckpointStore(tmp_path / "data" / "checkpoints")
    walks = WorkspaceSnapshots(store, root)
    first = walks.before()
    assert sorted(first.files) == ["change.txt", "gone.txt", "keep.txt", "tool.sh"]
    assert first.copied_files == 4
    again = walks.before()
    assert (again.copied_files, again.copied_bytes) == (0, 0)
    (root / "keep.txt").write_text("changed\n")
    assert walks.before().copied_files == 1
    executor = ToolExecutor(builtin_registry(), Workspace(root), approver=allow_all,
                            checkpoint=store.begin("s2", "q1"))
    done = payload(asyncio.run(executor.run(call("echo x > .git/HEAD; echo y > cache/big.bin"))))
    assert done["result"]["exit_code"] == 0
    assert store.find("s2") is None  # (nothing to put back was noted)


def test_a_file_too_large_to_keep_refuses_the_undo_by_name(
        tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop.tools import workspace_snapshot

    monkeypatch.setattr(workspace_snapshot, "MAX_FILE_BYTES", 10)
    (root / "big.bin").write_bytes(b"x" * 100)
    store = CheckpointStore(tmp_path / "data" / "checkpoints")
    turn = run_turn(store, root, [call("echo small > small.txt; rm big.bin")])
    with pytest.raises(UndoRefused, match="too large") as refused:
        store.undo(turn)
    assert "big.bin" in str(refused.value)
    assert (root / "small.txt").exists()


def test_a_kept_copy_that_no_longer_matches_its_hash_refuses_the_undo(
        tmp_path: Path, root: Path) -> None:
    workspace(root)
    store = CheckpointStore(tmp_path / "data" / "checkpoints")
    turn = run_turn(store, root, [call(CHANGES)])
    kept = next(f for f in turn.files if f.path.endswith("change.txt"))
    assert kept.blob is not None
    (store.root / "blobs" / kept.blob).write_bytes(b"")  # (as a crash could leave it)
    with pytest.raises(UndoRefused, match="missing") as refused:
        store.undo(turn)
    assert "change.txt" in str(refused.value)
    assert (root / "top.txt").exists()  # nothing was touched


def test_pruning_keeps_what_a_recent_workspace_index_needs_and_drops_an_old_index(
        tmp_path: Path, root: Path) -> None:
    import os
    import time

    workspace(root)
    store = CheckpointStore(tmp_path / "data" / "checkpoints")
    walks = WorkspaceSnapshots(store, root)
    walks.before()
    blobs = store.root / "blobs"
    old = time.time() - 90 * 86400
    for blob in blobs.iterdir():
        os.utime(blob, (old, old))
    assert store.prune(30 * 86400) == 0
    assert len(list(blobs.iterdir())) == 4  # (the index still names them)
    os.utime(walks.index_path, (old, old))
    store.prune(30 * 86400)
    assert not walks.index_path.exists() and not list(blobs.iterdir())
    assert walks.before().copied_files == 4  # (kept again on the next command)


def test_a_file_a_command_replaced_by_a_folder_and_back_is_undone(
        tmp_path: Path, root: Path) -> None:
    (root / "a.txt").write_text("a file\n")
    (root / "d").mkdir()
    (root / "d" / "x.txt").write_text("in a folder\n")
    store = CheckpointStore(tmp_path / "data" / "checkpoints")
    turn = run_turn(store, root, [call("rm a.txt && mkdir -p a.txt/deep && echo in > "
                                       "a.txt/deep/in.txt && rm -r d && echo f > d")])
    assert (root / "a.txt").is_dir() and (root / "d").is_file()
    store.undo(turn)
    assert (root / "a.txt").read_text() == "a file\n"
    assert (root / "d" / "x.txt").read_text() == "in a folder\n"
    assert sorted(p.name for p in root.iterdir()) == ["a.txt", "d"]


def test_a_folder_the_user_put_where_a_file_was_refuses_the_undo(
        tmp_path: Path, root: Path) -> None:
    (root / "a.txt").write_text("a file\n")
    store = CheckpointStore(tmp_path / "data" / "checkpoints")
    turn = run_turn(store, root, [call("rm a.txt")])
    (root / "a.txt").mkdir()
    with pytest.raises(UndoRefused, match="changed since") as refused:
        store.undo(turn)
    assert "a.txt" in str(refused.value) and (root / "a.txt").is_dir()
