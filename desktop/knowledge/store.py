"""Knowledge bases in the database: create, list, find, and their embedding choice."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from desktop.core.errors import ConfigError
from desktop.storage.database import Database

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy


class EmbeddingConfig(msgspec.Struct, frozen=True):
    """Which embedding model a base uses: ``kind`` is ``openai`` (any
    OpenAI-compatible ``/embeddings``), ``ollama`` or ``gemini``. The key: the
    environment variable ``api_key_env``, or the key of the configured provider
    ``provider_id`` (looked up through :attr:`KnowledgeStore.keys`)."""

    kind: str
    base_url: str
    model: str
    api_key_env: str | None = None
    provider_id: str | None = None

    def to_json(self) -> str:
        return json.dumps({"kind": self.kind, "base_url": self.base_url, "model": self.model,
                           "api_key_env": self.api_key_env, "provider_id": self.provider_id})

    @classmethod
    def from_json(cls, text: str | None) -> EmbeddingConfig | None:
        if not text:
            return None
        data = json.loads(text)
        return cls(kind=data["kind"], base_url=data["base_url"], model=data["model"],
                   api_key_env=data.get("api_key_env"), provider_id=data.get("provider_id"))


class KnowledgeBase(msgspec.Struct, frozen=True):
    """A knowledge base: the paths it indexes, its embedding choice and its counts."""

    id: int
    name: str
    paths: tuple[str, ...]
    embedding: EmbeddingConfig | None
    indexed_at: float | None
    files: int = 0
    chunks: int = 0


class KnowledgeStore:
    """``keys``: a configured provider's API key by provider id (the app's key store),
    for embedding models chosen from a provider. ``proxy``: the app's, for the
    embedding requests (None: the environment's proxy variables)."""

    def __init__(self, db: Database,
                 keys: Callable[[str], str | None] | None = None,
                 proxy: Proxy | None = None) -> None:
        self.db = db
        self.keys = keys
        self.proxy = proxy

    def api_key(self, config: EmbeddingConfig) -> str | None:
        if config.provider_id and self.keys is not None:
            return self.keys(config.provider_id)
        return os.environ.get(config.api_key_env) if config.api_key_env else None

    def add(self, name: str, paths: list[Path],
            embedding: EmbeddingConfig | None = None) -> KnowledgeBase:
        """Create ``name`` or add ``paths`` to it (absolute, each once)."""
        name = name.strip()
        if not name:
            raise ConfigError("a knowledge base needs a name", code="knowledge_name_needed")
        wanted = [str(p.expanduser().resolve()) for p in paths]
        missing = [p for p in wanted if not Path(p).exists()]
        if missing:
            raise ConfigError(f"no such file or folder: {', '.join(missing)}",
                              code="paths_missing", params={"paths": ", ".join(missing)})
        existing = self.find(name)
        with self.db.transaction() as conn:
            if existing is None:
                conn.execute("INSERT INTO knowledge_bases (name, paths, embedding, created_at)"
                             " VALUES (?, ?, ?, ?)",
                             (name, json.dumps(list(dict.fromkeys(wanted))),
                              embedding.to_json() if embedding else None, time.time()))
            else:
                merged = list(dict.fromkeys([*existing.paths, *wanted]))
                conn.execute("UPDATE knowledge_bases SET paths = ? WHERE id = ?",
                             (json.dumps(merged), existing.id))
                if embedding is not None:
                    conn.execute("UPDATE knowledge_bases SET embedding = ? WHERE id = ?",
                                 (embedding.to_json(), existing.id))
        found = self.find(name)
        assert found is not None
        return found

    def list(self) -> list[KnowledgeBase]:
        rows = self.db.query(
            "SELECT b.*, (SELECT COUNT(*) FROM knowledge_files f WHERE f.base_id = b.id) AS "
            "files, (SELECT COUNT(*) FROM knowledge_chunks c WHERE c.base_id = b.id) AS chunks"
            " FROM knowledge_bases b ORDER BY b.name COLLATE NOCASE")
        return [KnowledgeBase(id=r["id"], name=r["name"], paths=tuple(json.loads(r["paths"])),
                              embedding=EmbeddingConfig.from_json(r["embedding"]),
                              indexed_at=r["indexed_at"], files=r["files"], chunks=r["chunks"])
                for r in rows]

    def find(self, name: str) -> KnowledgeBase | None:
        wanted = name.strip().casefold()
        return next((b for b in self.list() if b.name.casefold() == wanted), None)

    def get(self, name: str) -> KnowledgeBase:
        """The base called ``name``; ConfigError naming the ones there are."""
        base = self.find(name)
        if base is None:
            names = ", ".join(b.name for b in self.list()) or "none yet"
            raise ConfigError(f"no knowledge base named {name!r} (there are: {names}); "
                              "create it with: assista knowledge add NAME PATH...",
                              code="no_knowledge_base", params={"name": name, "names": names})
        return base

    def rename(self, name: str, new_name: str) -> KnowledgeBase:
        base = self.get(name)
        new_name = new_name.strip()
        if not new_name:
            raise ConfigError("a knowledge base needs a name", code="knowledge_name_needed")
        other = self.find(new_name)
        if other is not None and other.id != base.id:
            raise ConfigError(f"there is already a knowledge base named {other.name!r}",
                              code="knowledge_exists", params={"name": other.name})
        with self.db.transaction() as conn:
            conn.execute("UPDATE knowledge_bases SET name = ? WHERE id = ?", (new_name, base.id))
        return self.get(new_name)

    def remove_path(self, name: str, path: str) -> KnowledgeBase:
        """Stop indexing ``path``; its files leave the index at the next indexing."""
        base = self.get(name)
        with self.db.transaction() as conn:
            conn.execute("UPDATE knowledge_bases SET paths = ? WHERE id = ?",
                         (json.dumps([p for p in base.paths if p != path]), base.id))
        return self.get(name)

    def set_embedding(self, name: str, embedding: EmbeddingConfig | None) -> KnowledgeBase:
        """Choose (or drop) the embedding model; vectors of another model are dropped."""
        base = self.get(name)
        with self.db.transaction() as conn:
            conn.execute("UPDATE knowledge_bases SET embedding = ? WHERE id = ?",
                         (embedding.to_json() if embedding else None, base.id))
            if embedding != base.embedding:
                conn.execute("UPDATE knowledge_chunks SET embedding = NULL WHERE base_id = ?",
                             (base.id,))
        return self.get(name)

    def remove(self, name: str) -> None:
        base = self.get(name)
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM knowledge_bases WHERE id = ?", (base.id,))
