"""Our threads' names as the operating system shows them (``top -H``, ``ps -L``,
``/proc/PID/task/*/comm``): Python 3.11 names its threads for itself only, so every
thread of the app showed as ``assista`` and what each one costs could not be told
apart (the streaming benchmark prints CPU per thread by these names)."""

from __future__ import annotations

import contextlib
import ctypes
import sys
import threading

__all__ = ["name_os_thread"]

_PR_SET_NAME = 15  # (linux/prctl.h)


def name_os_thread(name: str | None = None) -> None:
    """Give the calling thread ``name`` (default: its Python name) for the OS too, cut
    to the 15 bytes Linux keeps. Nothing elsewhere, nor when libc cannot be reached."""
    if not sys.platform.startswith("linux"):
        return
    raw = (name or threading.current_thread().name).encode("utf-8", "replace")[:15]
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_NAME, ctypes.c_char_p(raw), 0, 0, 0)
