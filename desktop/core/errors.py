"""Error types shared by every layer.

Each error has a ``code`` (what went wrong, from a closed set a window words in the
user's language: :mod:`desktop.core.error_codes`) and ``params`` (its data: names,
numbers, the server's own message). ``str(err)`` is the English one-liner the CLI
prints and the log keeps; a window shows ``code`` + ``params`` translated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from desktop.core.error_codes import ErrorInfo, provider_failure


class AssistaError(Exception):
    """Base class: ``str(err)`` is a one-line English message for stderr and the log."""

    #: The code of an error raised without one (a window shows its English text).
    default_code: ClassVar[str] = "error"

    def __init__(self, message: str = "", *, code: str | None = None,
                 params: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code: str = code or self.default_code
        self.params: dict[str, Any] = dict(params or {})

    @property
    def info(self) -> ErrorInfo:
        """``code`` + ``params``, to pass on and store beside the English text."""
        return ErrorInfo(self.code, self.params)


class ProviderError(AssistaError):
    """A provider request failed (HTTP status, network, malformed stream).

    ``server_code`` is the provider's own code (``invalid_api_key``...) or our transport
    one; ``code`` is the closed one worked out from it and ``status``, unless given."""

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status: int | None = None,
        code: str | None = None,
        server_code: str | None = None,
        model: str | None = None,
        detail: str | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
    ) -> None:
        info = provider_failure(server_code, status, provider=provider, model=model,
                                detail=detail, retry_after=retry_after)
        super().__init__(message, code=code or info.code, params=info.params)
        self.provider = provider
        self.status = status
        self.server_code = server_code
        self.retryable = retryable
        self.retry_after = retry_after

    def __str__(self) -> str:
        base = super().__str__()
        prefix = self.provider or "provider"
        if self.status is not None:
            prefix = f"{prefix} (HTTP {self.status})"
        return f"{prefix}: {base}"


class ConfigError(AssistaError):
    """Settings are missing or invalid (no provider, no model, bad URL...)."""

    default_code = "config"


class StorageError(AssistaError):
    """The database or a data file could not be read or written."""

    default_code = "storage"


class ReadOnlyStorageError(StorageError):
    """The data folder or the database cannot be written (a read-only mount, an
    immutable file, no permission); it can still be opened to read."""


class ToolError(AssistaError):
    """A tool failed in a way that is reported back to the model as an error result."""

    default_code = "tool_error"
