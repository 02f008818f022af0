"""Keep the app's secrets from the processes it starts (and any other of the user's).

A command the model runs is a process of the same user: on Linux it could read
``/proc/<assista's pid>/environ`` (the environment the app was started with, API keys
included) or its memory. :func:`guard_process`, called first thing at start (window and
command line), makes the process non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``: the
kernel then lets no other process of the user read its ``environ``, ``mem`` or attach
to it) and wipes the secret-looking variables from the environment block the kernel
shows there (a privileged reader is not stopped by the first). ``os.environ`` keeps
them, so the app still reads its keys; children started without an explicit
environment no longer inherit them.

Qt-free, standard library only; a no-op off Linux or when libc cannot be reached.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
from collections.abc import Callable

from desktop.tools.secret_names import holds_secret_value

log = logging.getLogger(__name__)

PR_SET_DUMPABLE = 4


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def make_non_dumpable() -> bool:
    """``prctl(PR_SET_DUMPABLE, 0)``; True if it took effect."""
    libc = _libc() if sys.platform.startswith("linux") else None
    if libc is None:
        return False
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        log.warning("could not make the process non-dumpable (errno %d)", ctypes.get_errno())
        return False
    return True


def wipe_environment_block(secret: Callable[[str], bool] = holds_secret_value) -> list[str]:
    """Overwrite the ``NAME=value`` entries of the C environment whose name ``secret``
    matches (with NUL bytes, in place: that memory is what ``/proc/<pid>/environ``
    reads) and drop them from it; returns the names wiped. ``os.environ`` is untouched."""
    libc = _libc() if sys.platform.startswith("linux") else None
    if libc is None:
        return []
    try:
        entries = ctypes.POINTER(ctypes.c_char_p).in_dll(libc, "environ")
        addresses = ctypes.cast(entries, ctypes.POINTER(ctypes.c_void_p))
    except (ValueError, AttributeError):
        return []
    found: list[tuple[str, int, int]] = []
    index = 0
    while (entry := entries[index]) is not None:
        name = entry.partition(b"=")[0].decode("utf-8", "surrogateescape")
        address = addresses[index]
        if address is not None and name and secret(name):
            found.append((name, address, len(entry)))
        index += 1
    for name, _address, _length in found:
        os.unsetenv(name)  # (the C environment only: os.environ keeps the value)
    for _name, address, length in found:
        ctypes.memset(address, 0, length)
    return [name for name, _address, _length in found]


def guard_process() -> None:
    """Both of the above, at start-up (before any thread or child is started)."""
    make_non_dumpable()
    wiped = wipe_environment_block()
    if wiped:
        log.debug("removed %d secret variable(s) from the environment block", len(wiped))
