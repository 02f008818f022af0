"""A target from its URL: ``file:///path``, ``webdav(s)://user@host/path``, ``s3://bucket/prefix``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

from desktop.sync.errors import SyncError
from desktop.sync.targets.base import Target
from desktop.sync.targets.folder import FolderTarget
from desktop.sync.targets.s3 import S3Target
from desktop.sync.targets.webdav import WebDavTarget

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy

PASSWORD_VARIABLE = "ASSISTA_SYNC_PASSWORD"
URL_FORMS = "file:///path, webdav(s)://user@host/path or s3://bucket/prefix"


def open_target(
    url: str, environ: Mapping[str, str], *, password: str | None = None,
    proxy: Proxy | None = None,
) -> Target:
    """The target ``url`` names. WebDAV's password is ``password`` or the
    ``ASSISTA_SYNC_PASSWORD`` variable; S3 uses the standard AWS variables. HTTP
    targets go through ``proxy`` (Preferences; ``None``: the environment's)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise SyncError(f"A file URL names a folder on this machine: file:///path ({url}).")
        folder = Path(url2pathname(parts.path))
        if not parts.path or not folder.is_absolute():  # file:// would be the current folder
            raise SyncError(f"A file URL names a folder by its full path: file:///path ({url}).")
        return FolderTarget(folder)
    if scheme in ("webdav", "webdavs"):
        if not parts.hostname:
            raise SyncError(f"The WebDAV URL {url} has no host.")
        http = "https" if scheme == "webdavs" else "http"
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        port = f":{parts.port}" if parts.port else ""
        user = unquote(parts.username) if parts.username else None
        secret = password if password is not None else environ.get(PASSWORD_VARIABLE)
        if parts.password:
            raise SyncError(
                f"Put the WebDAV password in {PASSWORD_VARIABLE}, not in the URL."
            )
        return WebDavTarget(f"{http}://{host}{port}{parts.path}", user, secret, proxy)
    if scheme == "s3":
        if not parts.netloc:
            raise SyncError(f"The S3 URL {url} has no bucket: s3://bucket/prefix.")
        return S3Target(parts.netloc, unquote(parts.path), environ, proxy)
    raise SyncError(f"Unknown sync target {url!r}: use {URL_FORMS}.")
