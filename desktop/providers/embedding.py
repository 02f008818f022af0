"""Embedding requests on the provider adapters: OpenAI-compatible ``/embeddings``,
Ollama ``/api/embed``, Gemini ``batchEmbedContents``.

They go the adapters' way (:meth:`HttpProvider._get_json`): the app's HTTP client
with the proxy of Preferences, retries of the request phase, size-limited replies and
redacted error messages. An adapter that embeds mixes :class:`Embeds` in and names its
request and how its vectors are read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from desktop.core.errors import ProviderError

__all__ = ["Embeds", "gemini_model"]


class Embeds:
    """``embed(model, texts)`` for an adapter (a mix-in of an ``HttpProvider``)."""

    name: str

    if TYPE_CHECKING:  # HttpProvider's (first in the MRO here, they must not be defined)
        async def _get_json(self, path: str, params: Any = None,
                            body: dict[str, Any] | None = None, **kwargs: Any) -> Any: ...

        async def aclose(self) -> None: ...

    def _embedding_request(self, model: str, texts: Sequence[str]
                           ) -> tuple[str, dict[str, Any]]:
        """The path and JSON body of one batch."""
        raise NotImplementedError

    def _embedding_vectors(self, data: Any) -> list[list[float]]:
        """The vectors of a reply, in the order of the texts."""
        raise NotImplementedError

    async def embed(self, model: str, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order (one request: the caller batches);
        ProviderError, also for a reply that is not a list of vectors."""
        path, body = self._embedding_request(model, texts)
        data = await self._get_json(path, body=body)
        try:
            vectors = self._embedding_vectors(data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ProviderError(f"unexpected embedding response ({exc!r})", provider=self.name,
                                code="bad_response") from None
        if len(vectors) != len(texts):
            raise ProviderError("the embedding service returned the wrong number of vectors",
                                provider=self.name, code="bad_response")
        return vectors


def floats(values: Any) -> list[float]:
    return [float(v) for v in values]


def gemini_model(model: str) -> str:
    return model if model.startswith("models/") else f"models/{model}"
