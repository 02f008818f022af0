"""A local folder target (one a sync tool already replicates: Syncthing, Dropbox, ...)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit
from urllib.request import url2pathname

from desktop.core.messages import new_id
from desktop.sync.errors import SyncError
from desktop.sync.targets.base import Entry, TargetFacts, amount

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy


class FolderTarget(TargetFacts):
    url_form = "file:///path"

    @classmethod
    def from_url(cls, url: str, environ: Mapping[str, str], *, password: str | None = None,
                 proxy: Proxy | None = None) -> FolderTarget:
        parts = urlsplit(url.strip())
        if parts.netloc not in ("", "localhost"):
            raise SyncError(f"A file URL names a folder on this machine: file:///path ({url}).",
                            code="sync_file_url", params={"url": url})
        folder = Path(url2pathname(parts.path))
        if not parts.path or not folder.is_absolute():  # file:// would be the current folder
            raise SyncError(f"A file URL names a folder by its full path: file:///path ({url}).",
                            code="sync_file_url", params={"url": url})
        return cls(folder)

    def __init__(self, root: Path) -> None:
        self.root = root
        self.description = str(root)

    def _path(self, path: str) -> Path:
        return self.root.joinpath(*path.split("/"))

    def read(self, path: str, limit: int) -> bytes | None:
        try:
            with open(self._path(path), "rb") as handle:
                data = handle.read(limit + 1)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self._error(exc, f"reading {path}") from exc
        if len(data) > limit:
            raise SyncError(
                f"{path} in the sync folder {self.description} is larger than "
                f"{amount(limit)}: not a file Assista wrote. Nothing was changed here.",
                code="sync_file_foreign",
                params={"file": path, "target": self.description, "limit": amount(limit)}
            )
        return data

    def write(self, path: str, data: bytes) -> None:
        # A temporary name no reader accepts, then an atomic rename.
        final = self._path(path)
        temp = final.with_name(f".part-{new_id()}")
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
            with open(temp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise self._error(exc, f"writing {path}") from exc

    def create(self, path: str, data: bytes) -> bool:
        final = self._path(path)
        temp = final.with_name(f".part-{new_id()}")
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
            temp.write_bytes(data)
            try:
                os.link(temp, final)  # fails if final exists: no race between devices
            except FileExistsError:
                return False
            except OSError:  # no hard links here (FAT, some network drives)
                if final.exists():
                    return False
                os.replace(temp, final)
            finally:
                temp.unlink(missing_ok=True)
        except OSError as exc:
            raise self._error(exc, f"writing {path}") from exc
        return True

    def entries(self, directory: str) -> list[Entry]:
        try:
            with os.scandir(self._path(directory)) as found:
                return sorted((_entry(e) for e in found), key=lambda e: e.name)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise self._error(exc, f"listing {directory}") from exc

    def list(self, directory: str) -> list[str]:
        return [entry.name for entry in self.entries(directory)]

    def delete(self, path: str) -> None:
        try:
            self._path(path).unlink(missing_ok=True)
        except OSError as exc:
            raise self._error(exc, f"deleting {path}") from exc

    def close(self) -> None:
        pass

    def _error(self, exc: OSError, action: str) -> SyncError:
        reason = exc.strerror or str(exc)
        return SyncError(
            f"Sync folder {self.description} failed while {action} ({reason}). "
            "Nothing was changed here.",
            code="sync_folder_failed",
            params={"target": self.description, "detail": f"{action}: {reason}"}
        )


def _entry(found: os.DirEntry[str]) -> Entry:
    stat = found.stat()
    return Entry(found.name, None if found.is_dir() else stat.st_size, stat.st_mtime)
