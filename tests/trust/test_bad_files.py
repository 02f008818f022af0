"""Imports of huge, bombed, looping and wrongly typed files: a clear one-line error or a
clean import, never a traceback or a hang, and the data folder unchanged."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from tests.trust.support import ROOT, assista, no_traceback, state

SAMPLE = ROOT / "tests" / "storage" / "data" / "chatgpt_conversations.json"
MB = 1024 * 1024


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    done = assista("import", str(SAMPLE), data_dir=root)
    assert done.returncode == 0, done.stderr
    return root


def check_refused(data_dir: Path, path: Path, expected: str) -> None:
    before = state(data_dir)
    done = assista("import", str(path), data_dir=data_dir, timeout=60)
    assert done.returncode == 1 and no_traceback(done), done.stderr
    assert expected in done.stderr, done.stderr
    assert state(data_dir) == before and before[1] == "ok"


def test_a_huge_file_is_refused_unread(data_dir: Path, tmp_path: Path) -> None:
    huge = tmp_path / "conversations.json"
    with huge.open("wb") as handle:  # sparse: 513 MB that take no disk
        handle.truncate(513 * MB)
    check_refused(data_dir, huge, "more than 512 MB of chats")


def test_a_zip_bomb_is_refused(data_dir: Path, tmp_path: Path) -> None:
    bomb = tmp_path / "export.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive, archive.open(
            "conversations.json", "w", force_zip64=True) as entry:
        block = b" " * MB
        for _ in range(513):
            entry.write(block)
    assert bomb.stat().st_size < 2 * MB
    check_refused(data_dir, bomb, "more than 512 MB of chats")


def test_a_zip_entry_larger_than_it_says_is_not_read_past_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop.core.errors import StorageError
    from desktop.storage import importer

    bomb = tmp_path / "export.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", b"[" + b" " * (2 * MB) + b"]")
    monkeypatch.setattr(importer, "MAX_IMPORT_BYTES", MB)
    real_infolist = zipfile.ZipFile.infolist

    def lying(self: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
        infos = real_infolist(self)
        for info in infos:
            info.file_size = 10  # the declared size lies
        return infos

    monkeypatch.setattr(zipfile.ZipFile, "infolist", lying)
    with pytest.raises(StorageError, match=r"damaged zip|not a JSON file|more than 1 MB"):
        importer.read_import_file(bomb)


WRONG_TYPES = [
    ("mapping is a list", [{"mapping": [1, 2], "title": "x"}]),
    ("mapping values are strings", [{"mapping": {"a": "b"}, "title": 3}]),
    ("message is a string", [{"mapping": {"a": {"id": "a", "message": "hi", "parent": None,
                                                "children": "b"}}}]),
    ("author is a list", [{"mapping": {"a": {"id": "a", "parent": None, "children": [],
                                             "message": {"id": "m", "author": ["user"],
                                                         "content": {"parts": "x"}}}}}]),
    ("parts hold numbers", [{"mapping": {"a": {"id": "a", "parent": None, "children": [],
                                               "message": {"id": "m",
                                                           "author": {"role": "user"},
                                                           "content": {"content_type": "text",
                                                                       "parts": [1, None]},
                                                           "create_time": "soon"}}}}]),
    ("assista export with wrong types", {"format": "assista-export", "version": 1,
                                         "sessions": [{"id": 5, "messages": "none"}]}),
    ("assista export sessions a dict", {"format": "assista-export", "version": 1,
                                        "sessions": {"a": 1}}),
    ("deeply nested", json.loads("[" * 50 + "]" * 50)),
]


@pytest.mark.parametrize(("case", "doc"), WRONG_TYPES, ids=[c for c, _ in WRONG_TYPES])
def test_wrongly_typed_exports_fail_cleanly(data_dir: Path, tmp_path: Path, case: str,
                                            doc: object) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    before = state(data_dir)
    done = assista("import", str(path), data_dir=data_dir, timeout=60)
    assert no_traceback(done), done.stderr
    assert done.returncode in (0, 1)
    if done.returncode == 1:
        assert done.stderr.strip().count("\n") == 0, done.stderr  # one line
    assert state(data_dir)[1] == "ok"
    if done.returncode == 1:
        assert state(data_dir) == before


def test_reused_node_ids_do_not_loop(data_dir: Path, tmp_path: Path) -> None:
    """Nodes whose parent/children form a cycle, and two nodes with one message id."""
    def node(nid: str, parent: str | None, children: list[str], mid: str) -> dict[str, object]:
        return {"id": nid, "parent": parent, "children": children,
                "message": {"id": mid, "author": {"role": "user"}, "create_time": 1.0,
                            "content": {"content_type": "text", "parts": [f"text {nid}"]}}}

    doc = [{"title": "Cycle", "conversation_id": "c-1", "current_node": "b",
            "mapping": {"a": node("a", "b", ["b"], "same"), "b": node("b", "a", ["a"], "same"),
                        "c": node("c", "c", ["c"], "other")}}]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    done = assista("import", str(path), data_dir=data_dir, timeout=30)
    assert no_traceback(done), done.stderr
    assert done.returncode in (0, 1), done.stderr
    assert state(data_dir)[1] == "ok"
