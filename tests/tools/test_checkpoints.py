"""The checkpoint store on its own: what a turn keeps, undo's refusals, pruning."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from desktop.tools.checkpoints import CheckpointStore, UndoRefused


def test_a_turn_is_kept_undone_once_and_pruned_when_old(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "checkpoints")
    file, new = tmp_path / "a.txt", tmp_path / "b.txt"
    file.write_text("before")
    turn = store.begin("s1", "q1")
    turn.before_write("c1", [file, new])
    file.write_text("after")
    new.write_text("created")
    turn.after_write([file, new])
    turn.before_write("c2", [file])  # a second write in the turn keeps the first copy
    file.write_text("after again")
    turn.after_write([file])
    found = store.find("s1")
    assert found is not None and found.call_ids == ["c1", "c2"]
    assert [(r.path, r.action) for r in store.undo(found)] == [
        (str(file), "restored"), (str(new), "deleted")]
    assert file.read_text() == "before" and not new.exists()
    assert store.find("s1") is None  # undone turns are not offered again
    manifest = next((tmp_path / "checkpoints" / "s1").glob("*.json"))
    doc = json.loads(manifest.read_text())
    doc["created_at"] = time.time() - 90 * 86400
    manifest.write_text(json.dumps(doc))
    for blob in (tmp_path / "checkpoints" / "blobs").iterdir():
        os.utime(blob, (time.time() - 90 * 86400,) * 2)
    assert store.prune(30 * 86400) == 1
    assert not list((tmp_path / "checkpoints").rglob("*.json"))
    assert not list((tmp_path / "checkpoints" / "blobs").iterdir())


def test_a_file_too_large_to_keep_refuses_the_undo(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop.tools import checkpoints

    monkeypatch.setattr(checkpoints, "MAX_FILE_BYTES", 10)
    store = CheckpointStore(tmp_path / "checkpoints")
    big = tmp_path / "big.bin"
    big.write_bytes(b"x" * 100)
    turn = store.begin("s1", "q1")
    turn.before_write("c1", [big])
    big.write_bytes(b"y" * 100)
    turn.after_write([big])
    changes = store.find("s1")
    assert changes is not None
    with pytest.raises(UndoRefused, match="too large"):
        store.undo(changes)
    assert big.read_bytes() == b"y" * 100


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
async def test_undo_keeps_each_files_mode_and_new_files_get_the_umask_mode(
        tmp_path: Path) -> None:
    """Undo used to write every restored file with mode 600 (a script lost its x bit)."""
    from desktop.core.messages import ToolCallPart
    from desktop.tools import ToolExecutor, Workspace, builtin_registry
    from desktop.tools.approval import allow_all

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "run.sh").write_text("echo hi\n")
    (ws / "run.sh").chmod(0o755)
    (ws / "notes.txt").write_text("notes\n")
    (ws / "notes.txt").chmod(0o644)
    store = CheckpointStore(tmp_path / "checkpoints")
    turn = store.begin("s1", "q1")
    executor = ToolExecutor(builtin_registry(), Workspace(ws), approver=allow_all,
                            checkpoint=turn)
    for index, (path, content) in enumerate(
            (("run.sh", "echo changed\n"), ("notes.txt", "changed\n"), ("new.txt", "new\n"))):
        part = await executor.run(ToolCallPart(id=f"c{index}", name="write_file", arguments=(
            json.dumps({"path": path, "content": content}))))
        assert part.status == "succeeded", part.content
    umask = os.umask(0)
    os.umask(umask)
    assert (ws / "new.txt").stat().st_mode & 0o777 == 0o666 & ~umask
    assert (ws / "run.sh").stat().st_mode & 0o777 == 0o755
    found = store.find("s1")
    assert found is not None
    store.undo(found)
    assert (ws / "run.sh").read_text() == "echo hi\n"
    assert (ws / "run.sh").stat().st_mode & 0o777 == 0o755
    assert (ws / "notes.txt").stat().st_mode & 0o777 == 0o644
    assert not (ws / "new.txt").exists()


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_undo_of_a_turn_kept_before_modes_were_noted_keeps_the_current_mode(
        tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "checkpoints")
    file = tmp_path / "tool.sh"
    file.write_text("v1\n")
    file.chmod(0o750)
    turn = store.begin("s1", "q1")
    turn.before_write("c1", [file])
    file.write_text("v2\n")
    turn.after_write([file])
    manifest = next((tmp_path / "checkpoints" / "s1").glob("*.json"))
    doc = json.loads(manifest.read_text())
    for entry in doc["files"]:
        entry.pop("mode", None)  # as written by an older version
    manifest.write_text(json.dumps(doc))
    found = store.find("s1")
    assert found is not None
    store.undo(found)
    assert file.read_text() == "v1\n" and file.stat().st_mode & 0o777 == 0o750
