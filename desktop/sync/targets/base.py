"""What the sync run needs of a target, and the errors of HTTP targets in plain words."""

from __future__ import annotations

from typing import Protocol

import httpx

from desktop.sync.errors import SyncError


class Target(Protocol):
    """Files addressed by ``/``-separated paths relative to the target's root."""

    description: str  # for messages: the URL without credentials

    def read(self, path: str) -> bytes | None:
        """The file's bytes; ``None`` when there is no such file."""

    def write(self, path: str, data: bytes) -> None:
        """Store the whole file under ``path`` at once: readers never see part of it."""

    def create(self, path: str, data: bytes) -> bool:
        """Like :meth:`write` only when nothing is at ``path``; ``False`` if something is."""

    def list(self, directory: str) -> list[str]:
        """Names of the files and folders directly inside; empty when it does not exist."""

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


def status_error(description: str, response: httpx.Response, action: str) -> SyncError:
    words = _STATUS_WORDS.get(response.status_code, f"answered {response.status_code}")
    return SyncError(f"Sync target {description} {words} while {action}. Nothing was changed here.")


def transport_error(description: str, exc: httpx.HTTPError, action: str) -> SyncError:
    if isinstance(exc, httpx.TimeoutException):
        what = "did not answer in time"
    elif isinstance(exc, httpx.ConnectError):
        what = "cannot be reached"
    elif isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        what = "dropped the connection"
    else:
        what = f"failed ({type(exc).__name__})"
    return SyncError(
        f"Sync target {description} {what} while {action}; your data here was not changed "
        "and the next sync will try again."
    )
