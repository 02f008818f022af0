"""Embedding requests: OpenAI-compatible ``/embeddings``, Ollama ``/api/embed``,
Gemini ``batchEmbedContents``. Synchronous (indexing runs in a worker thread or the
CLI; a query embeds one string)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import httpx

from desktop.core.errors import AssistaError
from desktop.knowledge.store import EmbeddingConfig

BATCH = 64
TIMEOUT_S = 60.0


class EmbeddingError(AssistaError):
    """The embedding service failed or answered something unexpected."""




def _post(client: httpx.Client, url: str, body: dict[str, Any],
          headers: dict[str, str]) -> Any:
    try:
        response = client.post(url, json=body, headers=headers)
    except httpx.HTTPError as exc:
        raise EmbeddingError(f"embedding request failed: {exc}") from None
    if response.status_code >= 400:
        raise EmbeddingError(f"embedding request failed: HTTP {response.status_code} "
                             f"{response.text[:200]}")
    return response.json()


def _batch(client: httpx.Client, config: EmbeddingConfig,
           texts: Sequence[str], key: str | None) -> list[list[float]]:
    base = config.base_url.rstrip("/")
    if config.kind == "ollama":
        data = _post(client, f"{base}/api/embed", {"model": config.model, "input": list(texts)},
                     {})
        return [list(map(float, v)) for v in data["embeddings"]]
    if config.kind == "gemini":
        model = config.model if config.model.startswith("models/") else f"models/{config.model}"
        body = {"requests": [{"model": model, "content": {"parts": [{"text": t}]}}
                             for t in texts]}
        data = _post(client, f"{base}/{model}:batchEmbedContents", body,
                     {"x-goog-api-key": key} if key else {})
        return [list(map(float, e["values"])) for e in data["embeddings"]]
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    data = _post(client, f"{base}/embeddings", {"model": config.model, "input": list(texts)},
                 headers)
    ordered = sorted(data["data"], key=lambda item: item.get("index", 0))
    return [list(map(float, item["embedding"])) for item in ordered]


def embed(config: EmbeddingConfig, texts: Sequence[str],
          api_key: str | None = None) -> list[list[float]]:
    """One vector per text, in order; raises EmbeddingError. ``api_key``: else the
    environment variable the config names."""
    key = api_key or (os.environ.get(config.api_key_env) if config.api_key_env else None)
    out: list[list[float]] = []
    with httpx.Client(timeout=TIMEOUT_S) as client:
        for start in range(0, len(texts), BATCH):
            piece = texts[start:start + BATCH]
            try:
                vectors = _batch(client, config, piece, key)
            except (KeyError, TypeError, ValueError) as exc:
                raise EmbeddingError(f"unexpected embedding response ({exc!r})") from None
            if len(vectors) != len(piece):
                raise EmbeddingError("the embedding service returned the wrong number of vectors")
            out += vectors
    return out


def check_embedding(config: EmbeddingConfig, api_key: str | None = None) -> None:
    """Embed one word, to know the service answers before a base is made with it."""
    try:
        embed(config, ["test"], api_key)
    except EmbeddingError as exc:
        raise EmbeddingError(f"the embedding model {config.model!r} at {config.base_url} "
                             f"cannot be used ({exc}); nothing was changed") from None
