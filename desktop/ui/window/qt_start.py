"""Making the QApplication, or saying in one line why there cannot be one.

Without a display (no ``DISPLAY`` nor ``WAYLAND_DISPLAY``: a server, an ssh session, a
shortcut run before the desktop is up) Qt prints its plugin diagnosis and aborts.
``assista`` and ``assista quick`` instead say that there is no display to show a
window on and exit with status 1 — before Qt tries anything: a platform plugin that
is tried anyway (Wayland's, where libwayland is installed) prints its own error.
With no platform named, Qt is given the one the environment names a display for
(Wayland's when ``WAYLAND_DISPLAY`` is set, else X11's), for the start only.
"""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

EXIT_NO_DISPLAY = 1


def no_display_text(said: list[str], environ: dict[str, str]) -> str:
    """The one line for a QApplication that could not start (``said``: what Qt said)."""
    display = environ.get("WAYLAND_DISPLAY") or environ.get("DISPLAY")
    if not display and environ.get("QT_QPA_PLATFORM", "") in ("", "xcb", "wayland"):
        where = "no display to show a window on (DISPLAY and WAYLAND_DISPLAY are not set)"
    else:
        cause = next((m for m in said if "connect" in m), said[0] if said else "")
        where = (f"cannot show a window on display {display or '?'}"
                 + (f" ({' '.join(cause.split())})" if cause else ""))
    return (f"assista: error: {where}; start Assista from a desktop session, or use "
            "'assista ask' in a terminal\n")


def _platform(environ: dict[str, str]) -> str | None:
    """The platform plugin for a display the environment names (None: Qt's choice)."""
    if environ.get("QT_QPA_PLATFORM"):
        return None
    if environ.get("WAYLAND_DISPLAY"):
        return "wayland"
    return "xcb" if environ.get("DISPLAY") else None


def new_application(style: str = "") -> QApplication:
    """``QApplication(argv[0])`` (with its widget ``style`` when named: made in Qt then,
    not later through Python, where making its enums took ~20 ms before the window
    showed); exits with one line when Qt cannot start."""
    said: list[str] = []
    environ = dict(os.environ)
    if not (environ.get("WAYLAND_DISPLAY") or environ.get("DISPLAY")) and \
            environ.get("QT_QPA_PLATFORM", "") in ("", "xcb", "wayland"):
        sys.stderr.write(no_display_text([], environ))
        sys.stderr.flush()
        raise SystemExit(EXIT_NO_DISPLAY)
    platform = _platform(environ)

    def handler(mode: QtMsgType, _context: QMessageLogContext, message: str) -> None:
        if mode == QtMsgType.QtFatalMsg:
            sys.stderr.write(no_display_text(said, dict(os.environ)))
            sys.stderr.flush()
            os._exit(EXIT_NO_DISPLAY)  # Qt aborts when the handler returns
        said.append(message)

    previous = qInstallMessageHandler(handler)
    if platform is not None:  # (for this start only: not the commands the app runs)
        os.environ["QT_QPA_PLATFORM"] = platform
    try:
        app = QApplication(sys.argv[:1] + (["-style", style] if style else []))
    finally:
        qInstallMessageHandler(previous)
        if platform is not None:
            os.environ.pop("QT_QPA_PLATFORM", None)
    for message in said:  # what Qt said on a start that worked, as it would have
        sys.stderr.write(message + "\n")
    return app
