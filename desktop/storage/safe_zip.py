"""Unpacking a zip from someone else (a skill, an MCP bundle) without trusting it.

Refused, before anything is written: a member whose path is absolute, has a drive,
climbs out with ``..``, or is a symbolic link; more than :data:`MAX_MEMBERS` members;
more than ``max_bytes`` once unpacked (the sizes the zip claims are checked first,
and the bytes actually written are counted too, so a lying header does not help).
"""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path, PurePosixPath

MAX_MEMBERS = 50_000  # (a Node server's node_modules runs to thousands of files)
DEFAULT_MAX_BYTES = 200 * 1024 * 1024
_CHUNK = 1024 * 1024


class UnsafeZipError(ValueError):
    """The zip cannot be unpacked safely (the message says why)."""


def member_path(name: str) -> PurePosixPath | None:
    """The member's relative path, None for a folder entry; UnsafeZipError if it
    would land outside the target folder."""
    clean = name.replace("\\", "/")
    path = PurePosixPath(clean)
    if clean.startswith("/") or (path.parts and ":" in path.parts[0]) or ".." in path.parts:
        raise UnsafeZipError(f"the archive holds a path outside its folder: {name!r}")
    if clean.endswith("/"):
        return None
    if not path.parts or path.parts == (".",):
        raise UnsafeZipError(f"the archive holds an empty path: {name!r}")
    return path


def check_zip(archive: zipfile.ZipFile, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise UnsafeZipError(f"the archive has more than {MAX_MEMBERS} files")
    total = 0
    for info in infos:
        member_path(info.filename)
        if stat.S_ISLNK(info.external_attr >> 16):
            raise UnsafeZipError(f"the archive holds a symbolic link: {info.filename!r}")
        total += info.file_size
    if total > max_bytes:
        raise UnsafeZipError(f"the archive unpacks to more than {max_bytes // (1024 * 1024)} MB")


def extract_zip(source: Path, target: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
    """Unpack ``source`` into the folder ``target`` (created). Raises UnsafeZipError
    (nothing written) or OSError; a bad zip file is UnsafeZipError too."""
    try:
        archive = zipfile.ZipFile(source)
    except zipfile.BadZipFile:
        raise UnsafeZipError("the file is not a zip archive") from None
    with archive:
        check_zip(archive, max_bytes)
        target.mkdir(parents=True, exist_ok=True)
        written = 0
        for info in archive.infolist():
            rel = member_path(info.filename)
            if rel is None:  # a folder (its path checked above)
                folder = PurePosixPath(info.filename.replace("\\", "/"))
                target.joinpath(*folder.parts).mkdir(parents=True, exist_ok=True)
                continue
            out = target.joinpath(*rel.parts)
            out.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as src, open(out, "wb") as dst:
                while chunk := src.read(_CHUNK):
                    written += len(chunk)
                    if written > max_bytes:
                        raise UnsafeZipError("the archive unpacks to more than it says")
                    dst.write(chunk)
            mode = (info.external_attr >> 16) & 0o777
            if mode & 0o111:
                out.chmod(0o755)  # scripts and binaries stay runnable
