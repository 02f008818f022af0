"""What keeps two runs, or two copies of a data folder, from writing as one device.

**One run at a time per data folder.** The window and ``assista sync`` may both sync
the same data folder; two runs at once would pick the same next segment number and
one upload would replace the other's. A run holds an OS lock on ``sync.lock`` in the
data folder (the mechanism of the instance lock, so a killed run releases it).

**One device per data folder.** A copied data folder (a backup restored on a second
machine, a folder duplicated to try something) carries the device id of the original;
both would then number segments in the same device folder on the target. The device
id is stored with the place it was made for (this machine's id and the data folder's
path); a run that finds itself elsewhere takes a new device id. The old id becomes
one of the other devices, read from where this copy left it: what it uploaded itself
is not downloaded again, what the original wrote since is.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from desktop.core.messages import new_id
from desktop.storage.instance_lock import try_lock, unlock
from desktop.sync import state
from desktop.sync.errors import SyncError

LOCK_FILENAME = "sync.lock"
DEVICE_HOME = "device_home"  # sync_meta: where the device id was made
LOCK_POLL_S = 0.1


class SyncBusyError(SyncError):
    """Another sync of this data folder is running (not a failure of this one)."""


@contextlib.contextmanager
def run_lock(folder: Path, wait_s: float = 0.0) -> Iterator[None]:
    """Hold the data folder's sync lock, waiting up to ``wait_s`` for another run.

    Raises :class:`SyncBusyError` when it stays taken."""
    folder.mkdir(parents=True, exist_ok=True)
    handle: IO[bytes] = open(folder / LOCK_FILENAME, "a+b")  # noqa: SIM115 - held below
    try:
        deadline = time.monotonic() + wait_s
        while not try_lock(handle):
            if time.monotonic() >= deadline:
                raise SyncBusyError(
                    "Another sync of this data folder is running; this one was skipped.",
                    code="sync_busy"
                )
            time.sleep(LOCK_POLL_S)  # flock has no timeout; a run takes seconds at most
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                unlock(handle)
    finally:
        handle.close()


def machine_id() -> str:
    """A stable id of this computer (the OS's own; the host name where there is none)."""
    if sys.platform.startswith("linux"):
        for path in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
            with contextlib.suppress(OSError):
                found = Path(path).read_text(encoding="ascii").strip()
                if found:
                    return found
    elif sys.platform == "win32":  # pragma: no cover - Windows only
        with contextlib.suppress(OSError):
            import winreg

            with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE,
                                r"SOFTWARE\Microsoft\Cryptography") as key:
                return str(winreg.QueryValueEx(key, "MachineGuid")[0])
    elif sys.platform == "darwin":  # pragma: no cover - macOS only
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run(["ioreg", "-rd1", "-c", "IOPlatformExpertDevice"],
                                 capture_output=True, text=True, timeout=5, check=False).stdout
            for line in out.splitlines():
                if "IOPlatformUUID" in line:
                    return line.split("=")[-1].strip().strip('"')
    return os.environ.get("COMPUTERNAME") or os.uname().nodename


def device_home(folder: Path) -> str:
    return f"{machine_id()}:{folder.resolve()}"


def claim_device(conn: sqlite3.Connection, home: str) -> str:
    """This data folder's device id; a new one when the stored one was made elsewhere.
    Call inside a write transaction."""
    current = state.device_id(conn)
    stored = state.get_meta(conn, DEVICE_HOME)
    if stored is None:  # set up before this check existed: this place is its home
        state.set_meta(conn, DEVICE_HOME, home)
        return current
    if stored == home:
        return current
    made = new_id()[:20]
    uploaded = int(state.get_meta(conn, state.NEXT_SEQ) or 1) - 1
    if uploaded > 0:
        # Everything the old id uploaded up to here came from this database.
        conn.execute(
            "INSERT INTO sync_cursors (device, seq) VALUES (?, ?) "
            "ON CONFLICT (device) DO UPDATE SET seq = MAX(seq, excluded.seq)",
            (current, uploaded),
        )
    state.set_meta(conn, state.DEVICE_ID, made)
    state.set_meta(conn, DEVICE_HOME, home)
    state.set_meta(conn, state.NEXT_SEQ, None)  # the new device folder starts at 1
    state.set_meta(conn, state.SMALL_SEGMENTS, None)
    return made
