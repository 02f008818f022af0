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
