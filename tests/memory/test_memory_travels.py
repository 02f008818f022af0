"""Memories travel like chats: in a JSON export and back in an import, and through
sync (encrypted) between two data folders; run as real ``assista`` processes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_memory_cli import run

SYNC = {"ASSISTA_SYNC_PASSPHRASE": "pass phrase"}


def listing(data: Path) -> list[list[str]]:
    done = run("memory", "list", data=data)
    assert done.returncode == 0, done.stderr
    return sorted(line.split("\t") for line in done.stdout.splitlines())


def test_export_and_import_round_trip(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for text in ("Prefers metric units", "Speaks French and German"):
        assert run("memory", "add", text, data=one).returncode == 0
    out = tmp_path / "export.json"
    exported = run("export", "--format", "json", "--output", str(out), data=one)
    assert exported.returncode == 0, exported.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert [m["text"] for m in doc["memories"]] == ["Prefers metric units",
                                                    "Speaks French and German"]
    imported = run("import", str(out), data=two)
    assert imported.returncode == 0, imported.stderr
    assert "Added 2 memories." in imported.stdout
    assert listing(two) == listing(one)
    again = run("import", str(out), data=two)  # nothing twice
    assert "memor" not in again.stdout and len(listing(two)) == 2


def test_a_damaged_memory_in_an_export_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "assista-export", "version": 2, "sessions": [],
                                "memories": [{"id": "x", "text": "t"}]}), encoding="utf-8")
    done = run("import", str(path), data=tmp_path / "data")
    assert done.returncode == 1
    assert "A memory in the export is not readable" in done.stderr


def sync(data: Path, target: Path) -> None:
    done = run("sync", "--target", target.as_uri(), data=data, env=SYNC)
    assert done.returncode == 0, done.stderr


def test_sync_between_two_data_folders(tmp_path: Path) -> None:
    one, two, target = tmp_path / "one", tmp_path / "two", tmp_path / "target"
    added = run("memory", "add", "Has a cat named Miso", data=one)
    memory_id = added.stdout.strip()
    sync(one, target)
    sync(two, target)
    assert listing(two) == [[memory_id, "global", "Has a cat named Miso"]]
    # nothing readable on the target: the segments are encrypted
    assert not any(b"Miso" in f.read_bytes() for f in target.rglob("*") if f.is_file())
    assert run("memory", "forget", memory_id, data=two).returncode == 0
    run("memory", "add", "Works nights", data=two)
    sync(two, target)
    sync(one, target)
    assert [row[2] for row in listing(one)] == ["Works nights"]
