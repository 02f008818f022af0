"""A file the indexer cannot take is reported with the English reason (the CLI prints
it) and, beside it, the code + params the window words it by."""

from __future__ import annotations

import os
from pathlib import Path

from desktop.app import DATABASE_MIGRATIONS
from desktop.knowledge.indexer import Indexer
from desktop.knowledge.store import KnowledgeStore
from desktop.storage.database import Database


def test_failures_carry_their_code(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("# Fine\n\nSome text.\n")
    (docs / "gone.md").symlink_to(docs / "missing.md")
    outside = tmp_path / "secret.md"
    outside.write_text("not for the index")
    (docs / "out.md").symlink_to(outside)
    os.mkfifo(docs / "pipe.md")
    (docs / "empty.pdf").write_bytes(b"")
    (docs / "fake.pdf").write_bytes(b"this is not a pdf at all")
    with Database.open(tmp_path / "assista.db", migrations=DATABASE_MIGRATIONS) as db:
        store = KnowledgeStore(db)
        base = store.add("docs", [docs])
        report = Indexer(store, base).run()
    failed = {Path(path).name: (why, report.failed_info.get(path))
              for path, why in report.failed.items()}
    codes = {name: info.code if info else None for name, (_why, info) in failed.items()}
    assert codes == {"gone.md": "link_broken", "out.md": "link_outside",
                     "pipe.md": "not_a_file", "fake.pdf": "not_a_pdf"}, failed
    why, info = failed["out.md"]
    assert why.startswith("out.md is a link out of the folder")
    assert info is not None and info.params == {"file": "out.md"}
