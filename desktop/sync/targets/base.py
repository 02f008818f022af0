"""What the sync run needs of a target, and the errors of HTTP targets in plain words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

import httpx

from desktop.sync.errors import SyncError

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy
    from desktop.sync.config import SyncConfig

#: How much of a reply may be held in memory, by what it is.
KEY_FILE_LIMIT = 64 * 1024
LISTING_LIMIT = 32 * 1024 * 1024  # one folder listing or one page of an S3 listing
FILE_LIMIT = 256 * 1024 * 1024  # one segment or snapshot part (writers stay far below)
ERROR_BODY_LIMIT = 64 * 1024  # the body of a refusal (read, then dropped)


@dataclass(frozen=True, slots=True)
class Entry:
    """A name in a folder of the target; ``size`` in bytes when the target says it
    (``None`` for a folder); ``modified``: when it was last written (epoch seconds, by
    the server's clock), when the target says it."""

    name: str
    size: int | None = None
    modified: float | None = None


class UploadTooLargeError(SyncError):
    """The target refused an upload as too large (413); ``size``: the refused body."""

    def __init__(self, message: str, size: int, *, code: str | None = None,
                 params: Mapping[str, Any] | None = None) -> None:
        super().__init__(message, code=code, params=params)
        self.size = size


#: The Sync settings' fields a target may use (besides its URL).
SettingsField = Literal["user", "secret", "endpoint", "region"]


class TargetFacts:
    """What the app knows about a kind of target, on its class (registered in
    :mod:`desktop.sync.targets.registry`)."""

    #: How its URL is written, for hints and messages.
    url_form: ClassVar[str] = ""
    #: The keyring id of its secret (None: it has none).
    secret_id: ClassVar[str | None] = None
    #: The Sync settings' fields it uses, and those that must be filled in.
    fields: ClassVar[frozenset[SettingsField]] = frozenset()
    required: ClassVar[frozenset[SettingsField]] = frozenset()
    #: What its user name and secret are called (codes the settings word and translate).
    user_label: ClassVar[str] = "user_name"
    secret_label: ClassVar[str] = "password"

    @classmethod
    def from_url(cls, url: str, environ: Mapping[str, str], *, password: str | None = None,
                 proxy: Proxy | None = None) -> Target:
        """The target ``url`` names (one of its schemes); SyncError when it cannot be."""
        raise NotImplementedError

    @classmethod
    def from_settings(cls, config: SyncConfig, secret: str | None,
                      proxy: Proxy | None = None) -> Target:
        """The target of the Sync settings ``config``; ``secret`` from the keyring."""
        return cls.from_url(config.url, {}, password=secret, proxy=proxy)


class Target(Protocol):
    """Files addressed by ``/``-separated paths relative to the target's root."""

    description: str  # for messages: the URL without credentials

    def read(self, path: str, limit: int) -> bytes | None:
        """The file's bytes; ``None`` when there is no such file. A file (or an answer)
        larger than ``limit`` bytes raises :class:`SyncError` without being read."""

    def write(self, path: str, data: bytes) -> None:
        """Store the whole file under ``path`` at once: readers never see part of it."""

    def create(self, path: str, data: bytes) -> bool:
        """Like :meth:`write` only when nothing is at ``path``; ``False`` if something is."""

    def entries(self, directory: str) -> list[Entry]:
        """The files and folders directly inside, with each file's size as the target
        stores it; empty when it does not exist."""

    def list(self, directory: str) -> list[str]:
        """Names of :meth:`entries`."""

    def delete(self, path: str) -> None:
        """Remove a file (nothing happens when it is already gone)."""

    def close(self) -> None: ...


_STATUS_WORDS = {
    401: "refused the credentials (401 Unauthorized); check the user name and password",
    403: "refused access (403 Forbidden); check the credentials and the path",
    404: "has no such folder or bucket (404 Not Found)",
    413: "refused a file as too large (413)",
    500: "failed with an internal error (500)",
    502: "is unreachable behind its gateway (502)",
    503: "is unavailable (503 Service Unavailable); try again later",
    504: "did not answer in time (504)",
    507: "is out of space (507 Insufficient Storage); free some space on it",
}

#: The code of a refusal by its HTTP status (words in desktop/ui/error_sentences).
_STATUS_CODES = {401: "sync_auth_failed", 403: "sync_forbidden", 404: "sync_not_found",
                 413: "sync_upload_refused", 507: "sync_target_full"}


def status_error(description: str, status: int, action: str, size: int = 0) -> SyncError:
    """``size``: the bytes sent with the refused request (for 413)."""
    words = _STATUS_WORDS.get(status, f"answered {status}")
    message = f"Sync target {description} {words} while {action}. Nothing was changed here."
    code = _STATUS_CODES.get(status, "sync_server_error" if status >= 500 else "sync_refused")
    params = {"target": description, "status": status, "detail": action}
    if status == 413:
        return UploadTooLargeError(message, size, code=code, params=params)
    return SyncError(message, code=code, params=params)


def amount(size: int) -> str:
    """Bytes in words: ``64 KB``, ``1.5 MB``."""
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.3g} MB"


def too_large(description: str, action: str, limit: int) -> SyncError:
    return SyncError(
        f"Sync target {description} sent more than {amount(limit)} while {action}; "
        "stopped reading it (the server or a proxy in between is broken). "
        "Nothing was changed here.",
        code="sync_reply_too_large",
        params={"target": description, "limit": amount(limit), "detail": action}
    )


def transport_error(description: str, exc: httpx.HTTPError, action: str) -> SyncError:
    if isinstance(exc, httpx.TimeoutException):
        what, code = "did not answer in time", "sync_timeout"
    elif isinstance(exc, httpx.ConnectError):
        what, code = "cannot be reached", "sync_unreachable"
    elif isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        what, code = "dropped the connection", "sync_dropped"
    else:
        what, code = f"failed ({type(exc).__name__})", "sync_failed"
    return SyncError(
        f"Sync target {description} {what} while {action}; your data here was not changed "
        "and the next sync will try again.",
        code=code, params={"target": description, "detail": action}
    )
