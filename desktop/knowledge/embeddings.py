"""Embedding a knowledge base's passages and queries with the provider adapters'
``embed`` (:mod:`desktop.providers.embedding`): the same HTTP client, proxy, retries
and redaction as a chat. Synchronous: indexing runs in a worker thread or the CLI,
a query embeds one string (the tool calls it in a worker thread)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from desktop.core.errors import AssistaError, ProviderError
from desktop.knowledge.store import EmbeddingConfig
from desktop.providers.embedding import Embeds
from desktop.providers.registry import embedding_adapter, wire_apis

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy
    from desktop.providers.retry import RetryPolicy

BATCH = 64
TIMEOUT_S = 60.0


class EmbeddingError(AssistaError):
    """The embedding service failed or answered something unexpected."""


def embedding_kinds() -> list[str]:
    """The embedding requests there are (``openai``, ``gemini``, ``ollama``...)."""
    return sorted({cls.embedding_kind for cls in wire_apis().values() if cls.embedding_kind})


def embed(config: EmbeddingConfig, texts: Sequence[str], api_key: str | None = None, *,
          proxy: Proxy | None = None, retry: RetryPolicy | None = None) -> list[list[float]]:
    """One vector per text, in order; raises EmbeddingError. ``proxy``: the app's
    (None: the environment's proxy variables). Blocks, also when called from a
    coroutine (``assista ask --knowledge`` indexes from its own)."""
    adapter = embedding_adapter(config.kind)
    if adapter is None:
        raise EmbeddingError(f"there is no embedding API {config.kind!r}",
                             code="embedding_no_api", params={"kind": config.kind})
    provider = adapter(config.base_url, api_key, name="embedding", timeout=TIMEOUT_S,
                       proxy=proxy, retry=retry)
    if not isinstance(provider, Embeds):
        raise EmbeddingError(f"the {config.kind} adapter does not embed",
                             code="embedding_unsupported", params={"kind": config.kind})
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # a worker thread, the CLI: no loop here
        return asyncio.run(_embed(provider, config.model, texts))
    with ThreadPoolExecutor(1, thread_name_prefix="embed") as pool:  # a loop of its own
        return pool.submit(asyncio.run, _embed(provider, config.model, texts)).result()


async def _embed(provider: Embeds, model: str, texts: Sequence[str]) -> list[list[float]]:
    out: list[list[float]] = []
    try:
        for start in range(0, len(texts), BATCH):
            out += await provider.embed(model, texts[start:start + BATCH])
    except ProviderError as exc:
        raise EmbeddingError(f"embedding request failed: {exc}",
                             code="embedding_failed", params={"detail": str(exc)}) from None
    finally:
        await provider.aclose()  # (HttpProvider's)
    return out


def check_embedding(config: EmbeddingConfig, api_key: str | None = None, *,
                    proxy: Proxy | None = None) -> None:
    """Embed one word, to know the service answers before a base is made with it."""
    try:
        embed(config, ["test"], api_key, proxy=proxy)
    except EmbeddingError as exc:
        raise EmbeddingError(f"the embedding model {config.model!r} at {config.base_url} "
                             f"cannot be used ({exc}); nothing was changed",
                             code="embedding_model_unusable",
                             params={"model": config.model, "url": config.base_url,
                                     "detail": str(exc)}) from None
