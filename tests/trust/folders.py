"""Data folders in the states a user's may be in: read-only (a read-only bind mount,
which root respects too), missing, damaged (a database that is not one) and broken
(the database a folder, the logs folder a file)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def read_only_mount(folder: Path) -> Iterator[Path]:
    """``folder`` bind-mounted read-only over itself (skips where mounting is not
    allowed: not root, no CAP_SYS_ADMIN)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a read-only bind mount needs root")
    done = subprocess.run(["mount", "--bind", "-o", "ro", str(folder), str(folder)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot bind-mount read-only here: {done.stderr.strip()}")
    try:
        probe = folder / ".probe"
        with pytest.raises(OSError):
            probe.write_text("x")
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def damage(data: Path) -> None:
    """The database replaced by bytes that are not a database."""
    for leftover in data.glob("*.sqlite3-*"):
        leftover.unlink()
    next(data.glob("assista.sqlite3")).write_bytes(b"not a database any more " * 400)


def break_apart(data: Path) -> None:
    """The database a folder, the logs folder a file, the lock a folder."""
    for name in ("assista.sqlite3", "assista.sqlite3-wal", "assista.sqlite3-shm",
                 "assista.lock"):
        with contextlib.suppress(FileNotFoundError):
            (data / name).unlink()
    (data / "assista.sqlite3").mkdir()
    (data / "assista.lock").mkdir()
    shutil.rmtree(data / "logs")
    (data / "logs").write_text("not a folder")


@contextlib.contextmanager
def small_disk(folder: Path, size: str = "4m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted on ``folder`` (skips where mounting is not allowed)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def fill(disk: Path) -> Path:
    """Fill ``disk`` to the last byte; returns the filler file (delete it to free)."""
    filler = disk / "filler"
    with filler.open("wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError:
            pass
    with contextlib.suppress(OSError), filler.open("ab") as handle:  # the last bytes
        for _ in range(65536):
            handle.write(b"\0")
            handle.flush()
    return filler
