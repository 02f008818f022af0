"""Knowledge bases on a real SQLite index: chunks with locations, BM25 ranking,
incremental re-index, deleted files, hybrid search with a loopback embeddings server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.app import DATABASE_MIGRATIONS
from desktop.documents import Section
from desktop.knowledge.chunking import chunk_sections
from desktop.knowledge.indexer import Indexer
from desktop.knowledge.search import embed_missing, search, search_base
from desktop.knowledge.store import EmbeddingConfig, KnowledgeStore
from desktop.knowledge.tool import search_knowledge_tool
from desktop.storage.database import Database
from desktop.tools.registry import ToolContext
from tests.knowledge.embedding_server import EmbeddingServer
from tests.support.documents import write_docx, write_pdf


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    with Database.open(tmp_path / "assista.db", migrations=DATABASE_MIGRATIONS) as database:
        yield database


def _folder(root: Path) -> Path:
    docs = root / "docs"
    (docs / "deep" / "deeper").mkdir(parents=True)
    (docs / "readme.md").write_text("# Project\n\nGeneral notes about the project.\n")
    (docs / "deep" / "deeper" / "ops.md").write_text(
        "intro line\n" * 30 + "The backup rotation keeps fourteen nightly snapshots.\n")
    write_pdf(docs / "manual.pdf", ["Cover page", "Calibrate the flux capacitor monthly."])
    write_docx(docs / "policy.docx", "Travel", ["Economy class for flights under six hours."])
    (docs / "node_modules").mkdir()
    (docs / "node_modules" / "skip.md").write_text("backup rotation decoy")
    (docs / "image.bin").write_bytes(b"\x00\x01")
    return docs


def test_chunks_keep_line_ranges() -> None:
    text = "\n".join(f"line {n} " + "x" * 40 for n in range(1, 101))
    chunks = list(chunk_sections([Section(text)], size=500))
    assert chunks[0].line_start == 1 and chunks[1].line_start == chunks[0].line_end + 1
    assert chunks[-1].line_end == 100
    assert all(len(c.text) <= 500 for c in chunks)


def test_index_search_and_locations(db: Database, tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    store = KnowledgeStore(db)
    base = store.add("Docs", [docs])
    report = Indexer(store, base).run()
    assert report.added == 4 and not report.failed  # node_modules and .bin are skipped
    base = store.get("docs")
    assert base.files == 4 and base.chunks >= 4
    hits = search(store, base, "how many nightly backup snapshots?")
    assert hits[0].path == str(docs / "deep" / "deeper" / "ops.md")
    assert hits[0].location == "lines 1-31" and "fourteen" in hits[0].text
    pdf_hit = search(store, base, "flux capacitor")[0]
    assert pdf_hit.path.endswith("manual.pdf") and pdf_hit.page == 2
    assert pdf_hit.location.startswith("page 2, line")
    assert search(store, base, "economy flights")[0].path.endswith("policy.docx")
    assert search(store, base, "zebra") == []


def test_incremental_reindex_and_deleted_files(db: Database, tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    store = KnowledgeStore(db)
    base = store.add("Docs", [docs])
    Indexer(store, base).run()
    again = Indexer(store, store.get("Docs")).run()
    assert (again.added, again.updated, again.removed, again.unchanged) == (0, 0, 0, 4)
    readme = docs / "readme.md"
    stat = readme.stat()
    os.utime(readme, (stat.st_atime, stat.st_mtime + 5))  # touched, same content
    assert Indexer(store, store.get("Docs")).run().unchanged == 4
    readme.write_text("# Project\n\nThe mascot is a purple walrus.\n")
    (docs / "deep" / "deeper" / "ops.md").unlink()
    report = Indexer(store, store.get("Docs")).run()
    assert (report.updated, report.removed) == (1, 1)
    base = store.get("Docs")
    assert search(store, base, "purple walrus")[0].path == str(readme)
    assert search(store, base, "fourteen nightly snapshots") == []
    assert db.query_one("SELECT COUNT(*) FROM knowledge_fts WHERE knowledge_fts MATCH "
                        "'fourteen'")[0] == 0  # type: ignore[index]


def test_unreadable_files_are_reported_not_fatal(db: Database, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("fine text")
    (docs / "broken.pdf").write_bytes(b"not a pdf at all")
    (docs / "empty.txt").write_bytes(b"")
    store = KnowledgeStore(db)
    report = Indexer(store, store.add("K", [docs])).run()
    assert "is not a PDF" in report.failed[str(docs / "broken.pdf")]
    assert search(store, store.get("K"), "fine")[0].path.endswith("ok.md")


def test_hybrid_search_with_loopback_embeddings(db: Database, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cats.md").write_text("Cats purr and sleep in the sun.")
    (docs / "dogs.md").write_text("Dogs bark at the mail carrier.")
    (docs / "sun.md").write_text("The sun is a star.")
    store = KnowledgeStore(db)
    with EmbeddingServer() as server:
        config = EmbeddingConfig(kind="openai", base_url=server.base_url, model="embed-test")
        base = store.add("Pets", [docs], config)
        Indexer(store, base).run()
        assert embed_missing(store, store.get("Pets")) == 3
        assert server.requests[0]["model"] == "embed-test"
        hits = search_base(store, store.get("Pets"), "why do dogs bark", top_k=3)
        assert hits[0].path.endswith("dogs.md")
        # vectors alone find a chunk that shares no searchable word with the query
        assert db.query_one("SELECT COUNT(*) FROM knowledge_chunks WHERE embedding IS NULL"
                            )[0] == 0  # type: ignore[index]


async def test_search_knowledge_tool(db: Database, tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    store = KnowledgeStore(db)
    Indexer(store, store.add("Docs", [docs])).run()
    tool = search_knowledge_tool(db, ["Docs"])
    assert tool.policy == "allow" and tool.read_only
    tool.validator.validate({"query": "backup", "top_k": 3})
    result = await tool.handler({"query": "backup snapshots", "top_k": 2}, ToolContext())
    first = result["results"][0]
    assert first["n"] == 1 and first["path"].endswith("ops.md")
    assert first["location"] == "lines 1-31" and "fourteen" in first["text"]
    assert len(result["results"]) <= 2
