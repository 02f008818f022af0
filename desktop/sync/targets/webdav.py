"""A WebDAV target (Nextcloud, ownCloud, Apache mod_dav, any server).

A file is PUT under a temporary name in its folder, then MOVEd to its name, so a
device that dies mid-upload leaves only a temporary file no reader accepts.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from urllib.parse import quote, unquote, urlsplit

import httpx

from desktop.core.messages import new_id
from desktop.sync.errors import SyncError
from desktop.sync.targets.http_files import new_client, request

_DAV = "{DAV:}"
_PROPFIND = (
    b'<?xml version="1.0" encoding="utf-8"?>'
    b'<propfind xmlns="DAV:"><prop><resourcetype/></prop></propfind>'
)


class WebDavTarget:
    def __init__(self, base_url: str, user: str | None, password: str | None) -> None:
        self._base = base_url.rstrip("/") + "/"
        parts = urlsplit(self._base)
        self.description = f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}{parts.path}"
        auth = httpx.BasicAuth(user, password or "") if user else None
        self._client = new_client(auth)
        self._made: set[str] = set()

    def _url(self, path: str) -> str:
        return self._base + quote(path)

    def read(self, path: str) -> bytes | None:
        response = request(
            self._client, self.description, "GET", self._url(path), f"reading {path}",
            ok=(200, 404),
        )
        return None if response.status_code == 404 else response.content

    def write(self, path: str, data: bytes) -> None:
        self._move_into_place(path, data, overwrite=True)

    def create(self, path: str, data: bytes) -> bool:
        return self._move_into_place(path, data, overwrite=False)

    def list(self, directory: str) -> list[str]:
        url = self._url(directory.rstrip("/") + "/")
        response = request(
            self._client, self.description, "PROPFIND", url, f"listing {directory}",
            ok=(207, 404), content=_PROPFIND,
            headers={"Depth": "1", "Content-Type": "application/xml"},
        )
        if response.status_code == 404:
            return []
        try:
            root = ET.fromstring(response.content)
        except ET.ParseError as exc:
            raise SyncError(
                f"Sync target {self.description} sent an unreadable folder listing ({exc})."
            ) from exc
        own = unquote(urlsplit(url).path).rstrip("/")
        names: list[str] = []
        for href in root.iter(f"{_DAV}href"):
            path = unquote(urlsplit(href.text or "").path).rstrip("/")
            if path and path != own and path.rsplit("/", 1)[0] == own:
                names.append(path.rsplit("/", 1)[-1])
        return sorted(names)

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
        request(
            self._client, self.description, "PUT", self._url(temp), f"uploading {path}",
            ok=(200, 201, 204), content=data,
            headers={"Content-Type": "application/octet-stream"},
        )
        moved = request(
            self._client, self.description, "MOVE", self._url(temp), f"storing {path}",
            ok=(201, 204, 412),
            headers={"Destination": self._url(path), "Overwrite": "T" if overwrite else "F"},
        )
        if moved.status_code == 412:
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
