"""Full-text ranking on a real index: words in most chunks are left out when rarer
ones are there, chunks with every word come first, the rarest words fill in, and
word counts are remembered only until the base is indexed again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.app import DATABASE_MIGRATIONS
from desktop.knowledge import fulltext
from desktop.knowledge.fulltext import document_frequencies, full_text, words_of
from desktop.knowledge.indexer import Indexer
from desktop.knowledge.search import search
from desktop.knowledge.store import KnowledgeStore
from desktop.storage.database import Database


@pytest.fixture
def store(tmp_path: Path) -> Iterator[KnowledgeStore]:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(60):
        (docs / f"note{n}.md").write_text(f"the meeting notes of the week {n}\n")
    (docs / "vault.md").write_text("the vault backup runs at night\n")
    (docs / "pelican.md").write_text("the pelican eats at noon\n")
    (docs / "both.md").write_text("the vault pelican story\n")
    with Database.open(tmp_path / "assista.db", migrations=DATABASE_MIGRATIONS) as db:
        knowledge = KnowledgeStore(db)
        Indexer(knowledge, knowledge.add("Docs", [docs])).run()
        fulltext._cache.clear()
        yield knowledge


def test_common_words_are_left_out_and_every_word_comes_first(store: KnowledgeStore) -> None:
    base = store.get("Docs")
    frequency = document_frequencies(store, base, ["the", "vault", "pelican", "absent"])
    assert frequency["vault"] == 2 and frequency["pelican"] == 2 and frequency["absent"] == 0
    assert frequency["the"] > 0.25 * base.chunks
    hits = search(store, base, "the vault pelican", 5)
    assert Path(hits[0].path).name == "both.md"  # every informative word
    assert {Path(h.path).name for h in hits} == {"both.md", "pelican.md", "vault.md"}
    # only common words: searched anyway (the rarest of them)
    assert len(full_text(store, base, "the", 5)) == 5
    assert full_text(store, base, "absent words", 5) == []
    assert full_text(store, base, 'quote" OR "x', 5) == []  # quotes stay literal


def test_word_counts_follow_a_new_index(store: KnowledgeStore, tmp_path: Path) -> None:
    base = store.get("Docs")
    assert document_frequencies(store, base, ["heron"]) == {"heron": 0}
    (tmp_path / "docs" / "heron.md").write_text("a heron by the vault\n")
    Indexer(store, base).run()
    fresh = store.get("Docs")
    assert fresh.indexed_at != base.indexed_at
    assert document_frequencies(store, fresh, ["heron"]) == {"heron": 1}
    assert Path(search(store, fresh, "heron vault", 1)[0].path).name == "heron.md"


def test_words_of_keeps_order_and_case_folds() -> None:
    assert words_of("The THE vault, vault; Été") == ["the", "vault", "été"]
