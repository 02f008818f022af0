"""Error types shared by every layer. Messages are written for the user to read."""

from __future__ import annotations


class AssistaError(Exception):
    """Base class: ``str(err)`` is a one-line message fit for the UI and stderr."""


class ProviderError(AssistaError):
    """A provider request failed (HTTP status, network, malformed stream)."""

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status: int | None = None,
        code: str | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status = status
        self.code = code
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


class StorageError(AssistaError):
    """The database or a data file could not be read or written."""


class ReadOnlyStorageError(StorageError):
    """The data folder or the database cannot be written (a read-only mount, an
    immutable file, no permission); it can still be opened to read."""


class ToolError(AssistaError):
    """A tool failed in a way that is reported back to the model as an error result."""

    def __init__(self, message: str, *, code: str = "tool_error") -> None:
        super().__init__(message)
        self.code = code
