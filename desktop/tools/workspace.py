"""The workspace: one folder the file tools are confined to.

Every path a model sends is resolved against the workspace root and refused when
it ends up outside: absolute paths elsewhere, ``..`` escapes, and symbolic links
whose target lies outside (checked with ``os.path.realpath`` and a
``commonpath`` comparison). Files are opened through :meth:`Workspace.open_file`,
which re-checks at open time: the final component is opened with ``O_NOFOLLOW``
where the platform has it, and on Linux and macOS the path of the opened
descriptor is checked once more. This narrows, but cannot fully close, the
window in which another process could swap a directory for a symlink.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO

from desktop.core.errors import ToolError

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)  # never hang on a FIFO; no effect on regular files
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_LOOP_ERRNOS = frozenset({errno.ELOOP, getattr(errno, "EMLINK", errno.ELOOP)})


def no_workspace_error() -> ToolError:
    """The error every file tool reports when no workspace folder is selected."""
    return ToolError(
        "No workspace folder is selected, so no files can be accessed. Ask the user to "
        "select a workspace folder in Assista, then try again.",
        code="no_workspace",
    )


class Workspace:
    """A folder that file tools may read inside of, and nowhere else.

    Raises ``ToolError(code="workspace_unavailable")`` when ``root`` is not an
    existing directory.
    """

    __slots__ = ("_root", "_root_key")

    def __init__(self, root: str | os.PathLike[str]) -> None:
        real = os.path.realpath(os.fspath(root))
        if not os.path.isdir(real):
            raise ToolError(
                f"The workspace folder {os.fspath(root)} does not exist or is not a folder.",
                code="workspace_unavailable",
            )
        self._root = Path(real)
        self._root_key = os.path.normcase(real)

    def __repr__(self) -> str:
        return f"Workspace({str(self._root)!r})"

    @property
    def root(self) -> Path:
        """The workspace folder, with symlinks resolved."""
        return self._root

    def contains(self, path: str | os.PathLike[str]) -> bool:
        """Whether ``path`` (an absolute, already resolved path) lies inside the root."""
        key = os.path.normcase(os.fspath(path))
        try:
            return os.path.commonpath([self._root_key, key]) == self._root_key
        except ValueError:  # different drives, or mixing absolute and relative
            return False

    def resolve(self, path: str) -> Path:
        """Resolve a model-supplied path to a real path inside the workspace.

        Relative paths are taken from the root; ``""`` means the root. The path
        need not exist. Raises ``ToolError`` with code ``invalid_path`` or
        ``path_outside_workspace``.
        """
        if "\x00" in path:
            raise ToolError(f"The path {path!r} contains a NUL character.", code="invalid_path")
        candidate = Path(path or ".")
        if not candidate.is_absolute():
            candidate = self._root / candidate
        real = os.path.realpath(candidate)
        if self.contains(real):
            return Path(real)
        if self.contains(os.path.abspath(candidate)):
            raise ToolError(
                f"'{path}' is a symbolic link (or lies under one) that points outside the "
                "workspace folder, so it cannot be accessed.",
                code="path_outside_workspace",
            )
        raise ToolError(
            f"'{path}' is outside the workspace folder. Only files inside the workspace can be "
            "accessed; use a path relative to the workspace root, such as 'src/main.py'.",
            code="path_outside_workspace",
        )

    def relative(self, path: str | os.PathLike[str]) -> str:
        """``path`` (inside the root) as a ``/``-separated path relative to the root."""
        rel = os.path.relpath(os.fspath(path), self._root)
        return "." if rel == os.curdir else rel.replace(os.sep, "/")

    def resolve_dir(self, path: str) -> Path:
        """Resolve ``path``; require an existing directory (``not_found``, ``not_a_directory``)."""
        real = self.resolve(path)
        try:
            st = os.stat(real)
        except FileNotFoundError:
            raise ToolError(f"'{path}' does not exist.", code="not_found") from None
        except OSError as exc:
            raise _os_error(path, exc) from None
        if not stat.S_ISDIR(st.st_mode):
            raise ToolError(f"'{path}' is not a directory.", code="not_a_directory")
        return real

    def scandir(self, directory: Path) -> list[os.DirEntry[str]]:
        """The entries of a directory already resolved inside the workspace, re-checked now."""
        if not self.contains(os.path.realpath(directory)):
            raise ToolError(
                f"'{self.relative(directory)}' changed to point outside the workspace folder.",
                code="path_outside_workspace",
            )
        with os.scandir(directory) as it:
            return list(it)

    def open_file(self, path: str) -> tuple[BinaryIO, os.stat_result]:
        """Open a regular file inside the workspace for binary reading.

        Raises ``ToolError`` with code ``not_found``, ``not_a_file``,
        ``path_outside_workspace``, ``permission_denied`` or ``io_error``.
        """
        real = self.resolve(path)
        try:
            fd = os.open(real, _OPEN_FLAGS)
        except FileNotFoundError:
            raise ToolError(f"'{path}' does not exist.", code="not_found") from None
        except IsADirectoryError:
            raise _directory_error(path) from None
        except OSError as exc:
            if exc.errno in _LOOP_ERRNOS:
                raise ToolError(
                    f"'{path}' became a symbolic link while it was being opened; refusing to "
                    "follow it.",
                    code="path_outside_workspace",
                ) from None
            raise _os_error(path, exc) from None
        try:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise _directory_error(path)
            if not stat.S_ISREG(st.st_mode):
                raise ToolError(
                    f"'{path}' is not a regular file (it is a device, pipe or socket).",
                    code="not_a_file",
                )
            opened = _descriptor_path(fd)
            if opened is not None and not self.contains(opened):
                raise ToolError(
                    f"'{path}' changed to point outside the workspace folder while it was "
                    "being opened.",
                    code="path_outside_workspace",
                )
            return os.fdopen(fd, "rb"), st
        except BaseException:
            os.close(fd)
            raise


def _directory_error(path: str) -> ToolError:
    return ToolError(
        f"'{path}' is a directory, not a file. Use list_directory to see what it contains.",
        code="not_a_file",
    )


def _os_error(path: str, exc: OSError) -> ToolError:
    if isinstance(exc, PermissionError):
        return ToolError(f"Permission denied for '{path}'.", code="permission_denied")
    reason = exc.strerror or exc.__class__.__name__
    return ToolError(f"Could not access '{path}': {reason}.", code="io_error")


def _descriptor_path(fd: int) -> str | None:
    """The path the kernel reports for an open descriptor, where it can tell us."""
    if sys.platform.startswith("linux"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return None
        return target.removesuffix(" (deleted)") if target.startswith("/") else None
    if sys.platform == "darwin":
        import fcntl

        f_getpath: int | None = getattr(fcntl, "F_GETPATH", None)
        if f_getpath is None:
            return None
        try:
            raw = fcntl.fcntl(fd, f_getpath, bytes(1024))
        except OSError:
            return None
        return os.fsdecode(raw.split(b"\0", 1)[0])
    return None
