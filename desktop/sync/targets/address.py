"""A target from its URL: ``file:///path``, ``webdav(s)://user@host/path``, ``s3://bucket/prefix``
(each kind's class says how: see :mod:`desktop.sync.targets.registry`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from desktop.sync.errors import SyncError
from desktop.sync.targets.registry import target_class, url_forms
from desktop.sync.targets.webdav import PASSWORD_VARIABLE

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy
    from desktop.sync.targets.base import Target

__all__ = ["PASSWORD_VARIABLE", "open_target"]


def open_target(
    url: str, environ: Mapping[str, str], *, password: str | None = None,
    proxy: Proxy | None = None,
) -> Target:
    """The target ``url`` names. WebDAV's password is ``password`` or the
    ``ASSISTA_SYNC_PASSWORD`` variable; S3 uses the standard AWS variables. HTTP
    targets go through ``proxy`` (Preferences; ``None``: the environment's)."""
    cls = target_class(urlsplit(url.strip()).scheme)
    if cls is None:
        raise SyncError(f"Unknown sync target {url!r}: use {url_forms()}.",
                        code="sync_unknown_target", params={"url": url, "forms": url_forms()})
    return cls.from_url(url, environ, password=password, proxy=proxy)
