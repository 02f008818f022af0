"""A WebDAV target (Nextcloud, ownCloud, Apache mod_dav, any server).

A file is PUT under a temporary name in its folder, then MOVEd to its name, so a
device that dies mid-upload leaves only a temporary file no reader accepts.
"""

from __future__ import annotations

import contextlib
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import httpx

from desktop.core.messages import new_id
from desktop.sync.config import PASSWORD_ID
from desktop.sync.errors import SyncError
from desktop.sync.targets.base import LISTING_LIMIT, Entry, TargetFacts
from desktop.sync.targets.http_files import new_client, request
from desktop.sync.targets.xml_names import child_text, children, local_name

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy
    from desktop.sync.config import SyncConfig

PASSWORD_VARIABLE = "ASSISTA_SYNC_PASSWORD"

_PROPFIND = (
    b'<?xml version="1.0" encoding="utf-8"?>'
    b'<propfind xmlns="DAV:"><prop><resourcetype/><getcontentlength/><getlastmodified/>'
    b"</prop></propfind>"
)


def webdav_url(url: str, user: str) -> str:
    """``url`` with ``user`` as its user name (the one given in the URL wins)."""
    parts = urlsplit(url.strip())
    if parts.username or not user.strip():
        return url.strip()
    return urlunsplit(parts._replace(netloc=f"{quote(user.strip(), safe='')}@{parts.netloc}"))


class WebDavTarget(TargetFacts):
    url_form = "webdav(s)://user@host/path"
    secret_id = PASSWORD_ID
    fields = frozenset({"user", "secret"})

    @classmethod
    def from_url(cls, url: str, environ: Mapping[str, str], *, password: str | None = None,
                 proxy: Proxy | None = None) -> WebDavTarget:
        """The password: ``password``, else the ``ASSISTA_SYNC_PASSWORD`` variable."""
        parts = urlsplit(url.strip())
        if not parts.hostname:
            raise SyncError(f"The WebDAV URL {url} has no host.",
                            code="sync_webdav_no_host", params={"url": url})
        http = "https" if parts.scheme.lower() == "webdavs" else "http"
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        port = f":{parts.port}" if parts.port else ""
        user = unquote(parts.username) if parts.username else None
        secret = password if password is not None else environ.get(PASSWORD_VARIABLE)
        if parts.password:
            raise SyncError(
                f"Put the WebDAV password in {PASSWORD_VARIABLE}, not in the URL.",
                code="sync_webdav_password", params={"variable": PASSWORD_VARIABLE}
            )
        return cls(f"{http}://{host}{port}{parts.path}", user, secret, proxy)

    @classmethod
    def from_settings(cls, config: SyncConfig, secret: str | None,
                      proxy: Proxy | None = None) -> WebDavTarget:
        return cls.from_url(webdav_url(config.url, config.user), {},
                            password=secret or None, proxy=proxy)

    def __init__(self, base_url: str, user: str | None, password: str | None,
                 proxy: Proxy | None = None) -> None:
        self._base = base_url.rstrip("/") + "/"
        parts = urlsplit(self._base)
        self.description = f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}{parts.path}"
        auth = httpx.BasicAuth(user, password or "") if user else None
        self._client = new_client(auth, proxy)
        self._made: set[str] = set()

    def _url(self, path: str) -> str:
        return self._base + quote(path)

    def read(self, path: str, limit: int) -> bytes | None:
        reply = request(
            self._client, self.description, "GET", self._url(path), f"reading {path}",
            ok=(200, 404), limit=limit,
        )
        return None if reply.status == 404 else reply.body

    def write(self, path: str, data: bytes) -> None:
        self._move_into_place(path, data, overwrite=True)

    def create(self, path: str, data: bytes) -> bool:
        return self._move_into_place(path, data, overwrite=False)

    def entries(self, directory: str) -> list[Entry]:
        inner = directory.strip("/")
        url = self._url(f"{inner}/") if inner else self._base
        reply = request(
            self._client, self.description, "PROPFIND", url, f"listing {directory}",
            ok=(207, 404), content=_PROPFIND, limit=LISTING_LIMIT,
            headers={"Depth": "1", "Content-Type": "application/xml"},
        )
        if reply.status == 404:
            return []
        try:
            root = ET.fromstring(reply.body)
        except ET.ParseError as exc:
            raise SyncError(
                f"Sync target {self.description} sent an unreadable folder listing ({exc}).",
                code="sync_bad_listing", params={"target": self.description, "detail": str(exc)}
            ) from exc
        own = unquote(urlsplit(url).path).rstrip("/")
        found: list[Entry] = []
        for response in children(root, "response"):
            path = unquote(urlsplit(child_text(response, "href") or "").path).rstrip("/")
            if path and path != own and path.rsplit("/", 1)[0] == own:
                size, modified = _size_and_time(response)
                found.append(Entry(path.rsplit("/", 1)[-1], size, modified))
        return sorted(found, key=lambda e: e.name)

    def list(self, directory: str) -> list[str]:
        return [entry.name for entry in self.entries(directory)]

    def delete(self, path: str) -> None:
        request(
            self._client, self.description, "DELETE", self._url(path), f"deleting {path}",
            ok=(200, 204, 404),
        )

    def close(self) -> None:
        self._client.close()

    def _move_into_place(self, path: str, data: bytes, *, overwrite: bool) -> bool:
        folder = path.rpartition("/")[0]
        self._make_folders(folder)
        temp = f"{folder}/.part-{new_id()}" if folder else f".part-{new_id()}"
        for attempt in (1, 2):
            put = request(
                self._client, self.description, "PUT", self._url(temp), f"uploading {path}",
                ok=(200, 201, 204, 409) if attempt == 1 else (200, 201, 204), content=data,
                headers={"Content-Type": "application/octet-stream"},
            )
            if put.status != 409:
                break
            # 409: no such folder. Someone emptied the target since it was made here.
            self._made.clear()
            self._make_folders(folder)
        moved = request(
            self._client, self.description, "MOVE", self._url(temp), f"storing {path}",
            ok=(201, 204, 412),
            headers={"Destination": self._url(path), "Overwrite": "T" if overwrite else "F"},
        )
        if moved.status == 412:
            self.delete(temp)
            return False
        return True

    def _make_folders(self, folder: str) -> None:
        if "" not in self._made:  # the sync folder itself, inside an existing one
            request(
                self._client, self.description, "MKCOL", self._base, "creating the sync folder",
                ok=(201, 405, 301),
            )
            self._made.add("")
        done = ""
        for piece in [p for p in folder.split("/") if p]:
            done = f"{done}/{piece}" if done else piece
            if done in self._made:
                continue
            request(
                self._client, self.description, "MKCOL", self._url(done) + "/",
                f"creating the folder {done}", ok=(201, 405, 301),
            )
            self._made.add(done)


def _size_and_time(response: ET.Element) -> tuple[int | None, float | None]:
    """``getcontentlength`` (``None`` for a folder or when the server does not say) and
    ``getlastmodified`` of a ``propstat`` that succeeded."""
    size: int | None = None
    modified: float | None = None
    for propstat in children(response, "propstat"):
        if " 200 " not in f"{child_text(propstat, 'status') or ''} ":
            continue
        for prop in children(propstat, "prop"):
            folder = any(local_name(e.tag) == "collection"
                         for t in children(prop, "resourcetype") for e in t)
            length = (child_text(prop, "getcontentlength") or "").strip()
            if length.isdigit() and not folder:
                size = int(length)
            stamp = (child_text(prop, "getlastmodified") or "").strip()
            with contextlib.suppress(TypeError, ValueError, IndexError):
                modified = parsedate_to_datetime(stamp).timestamp() if stamp else None
    return size, modified
