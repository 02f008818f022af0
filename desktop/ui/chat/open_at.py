"""Opening a file at a page or line, where the platform allows it.

The desktop's "open" request (QDesktopServices) takes no position. On Linux the
default application for the file's type is known (``xdg-mime query default``); when
it is a viewer or editor whose command line takes a page or line, it is started with
one. Anything else (another application, another platform, a missing command) falls
back to opening the file.
"""

from __future__ import annotations

import mimetypes
import shutil
import subprocess
import sys

from PySide6.QtCore import QProcess

#: Desktop-file ids (without ".desktop") and their command line for a page or line.
PAGE_COMMANDS: dict[str, list[str]] = {
    "org.gnome.Evince": ["evince", "--page-index={page}", "{path}"],
    "evince": ["evince", "--page-index={page}", "{path}"],
    "atril": ["atril", "--page-index={page}", "{path}"],
    "org.kde.okular": ["okular", "--page", "{page}", "{path}"],
    "okularApplication_pdf": ["okular", "--page", "{page}", "{path}"],
    "org.pwmt.zathura": ["zathura", "--page={page}", "{path}"],
    "org.pwmt.zathura-pdf-mupdf": ["zathura", "--page={page}", "{path}"],
}
LINE_COMMANDS: dict[str, list[str]] = {
    "code": ["code", "--goto", "{path}:{line}"],
    "codium": ["codium", "--goto", "{path}:{line}"],
    "org.gnome.gedit": ["gedit", "+{line}", "{path}"],
    "org.kde.kate": ["kate", "--line", "{line}", "{path}"],
    "org.kde.kwrite": ["kwrite", "--line", "{line}", "{path}"],
}


def location_command(desktop_id: str, path: str, page: int | None,
                     line: int | None) -> list[str] | None:
    """The command that opens ``path`` at ``page`` (documents) or ``line`` (text) with
    the application ``desktop_id``; None when it has no such option."""
    app = desktop_id.removesuffix(".desktop")
    if page is not None and app in PAGE_COMMANDS:
        template = PAGE_COMMANDS[app]
    elif page is None and line is not None and app in LINE_COMMANDS:
        template = LINE_COMMANDS[app]
    else:
        return None
    return [part.format(path=path, page=page, line=line) for part in template]


def default_application(path: str) -> str | None:
    """The desktop's default application for ``path``'s type (Linux), else None."""
    if not sys.platform.startswith("linux") or shutil.which("xdg-mime") is None:
        return None
    kind = mimetypes.guess_type(path)[0] or "text/plain"
    try:
        done = subprocess.run(["xdg-mime", "query", "default", kind], capture_output=True,
                              text=True, timeout=3, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def open_at(path: str, page: int | None, line: int | None) -> bool:
    """Start the default application at the place; False when it cannot (the caller
    then opens the file)."""
    if page is None and line is None:
        return False
    app = default_application(path)
    command = location_command(app, path, page, line) if app else None
    if command is None or shutil.which(command[0]) is None:
        return False
    started, _pid = QProcess.startDetached(command[0], command[1:])
    return bool(started)
