"""Race-safe reads and atomic writes of workspace files.

A model-supplied path is first resolved with :meth:`Workspace.resolve` (realpath,
refused outside the root). The resolved path has no symbolic links left in it, so
it is then walked from the root one component at a time with ``openat``-style
calls (``dir_fd``) and ``O_NOFOLLOW``: if any component was swapped for a
symlink after the check, the walk fails and the call is refused. Writes go to a
temporary file in the same directory (same permissions as the file replaced),
which is fsynced and renamed over the target; a rename replaces a symlink that
appears at the last moment instead of writing through it. Platforms without
``dir_fd`` support (Windows) fall back to path-based calls with a re-check.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator

import msgspec

from desktop.core.errors import ToolError
from desktop.tools.workspace import Workspace

_HAVE_DIR_FD = {os.open, os.rename, os.stat, os.mkdir} <= os.supports_dir_fd
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
_SWAP_ERRNOS = frozenset({errno.ELOOP, errno.ENOTDIR, getattr(errno, "EMLINK", errno.ELOOP)})
MAX_EDIT_BYTES = 10 * 1024 * 1024


class Target(msgspec.Struct, frozen=True):
    """A write target: its display path, real path and its parts below the root."""

    path: str  # as the model gave it
    real: str
    parents: tuple[str, ...]
    name: str


def target(workspace: Workspace, path: str) -> Target:
    real = workspace.resolve(path)
    rel = workspace.relative(real)
    if rel == ".":
        raise ToolError(
            "The path names the workspace folder itself, not a file.", code="not_a_file"
        )
    parts = tuple(rel.split("/"))
    return Target(path=path, real=str(real), parents=parts[:-1], name=parts[-1])


def _component_error(dfd: int, part: str, t: Target) -> ToolError:
    try:
        st = os.stat(part, dir_fd=dfd, follow_symlinks=False)
    except OSError:
        return _swapped(t)
    if stat.S_ISLNK(st.st_mode):
        return _swapped(t)
    return ToolError(f"'{part}' in '{t.path}' is a file, not a folder.", code="not_a_directory")


def _swapped(t: Target) -> ToolError:
    return ToolError(
        f"'{t.path}' (or a folder above it) changed into a symbolic link or another kind of "
        "file while it was being used; refusing to follow it.",
        code="path_outside_workspace",
    )


@contextlib.contextmanager
def _parent_fd(workspace: Workspace, t: Target, *, create: bool) -> Iterator[int]:
    """A descriptor of the target's folder, reached without following any symlink."""
    fd = os.open(workspace.root, _DIR_FLAGS)
    try:
        for part in t.parents:
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in _SWAP_ERRNOS:
                    raise _component_error(fd, part, t) from None
                raise
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def read_existing(workspace: Workspace, path: str, max_bytes: int = MAX_EDIT_BYTES) -> bytes | None:
    """The bytes of a workspace file, or None if it does not exist (nor its folder)."""
    t = target(workspace, path)
    try:
        if not _HAVE_DIR_FD:
            return _read_by_path(workspace, t, max_bytes)
        with _parent_fd(workspace, t, create=False) as dfd:
            try:
                fd = os.open(t.name, _READ_FLAGS, dir_fd=dfd)
            except OSError as exc:
                if exc.errno in _SWAP_ERRNOS:
                    raise _swapped(t) from None
                raise
            return _read_fd(fd, t, max_bytes)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise _not_a_file(t) from None
    except PermissionError:
        raise ToolError(f"Permission denied for '{path}'.", code="permission_denied") from None


def _read_fd(fd: int, t: Target, max_bytes: int) -> bytes:
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise _not_a_file(t)
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ToolError(
            f"'{t.path}' is larger than {max_bytes // (1024 * 1024)} MB, which is too large to "
            "edit with this tool.",
            code="too_large",
        )
    return data


def _read_by_path(workspace: Workspace, t: Target, max_bytes: int) -> bytes | None:
    try:
        handle, _ = workspace.open_file(t.path)
    except ToolError as exc:
        if exc.code == "not_found":
            return None
        raise
    with handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ToolError(f"'{t.path}' is too large to edit with this tool.", code="too_large")
    return data


def _not_a_file(t: Target) -> ToolError:
    return ToolError(
        f"'{t.path}' is not a regular file (it is a folder, device or pipe).", code="not_a_file"
    )


def atomic_write(
    workspace: Workspace, path: str, data: bytes, *, create_only: bool = False
) -> bool:
    """Write ``data`` to a workspace file atomically; True if the file was created.

    Missing parent folders are created. ``create_only`` refuses an existing file
    (``already_exists``). The file keeps its permission bits when replaced.
    """
    t = target(workspace, path)
    try:
        if not _HAVE_DIR_FD:
            return _write_by_path(t, data, create_only)
        with _parent_fd(workspace, t, create=True) as dfd:
            return _write_at(dfd, t, data, create_only)
    except PermissionError:
        raise ToolError(f"Permission denied for '{path}'.", code="permission_denied") from None
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
            raise ToolError(
                f"The disk is full; '{path}' was not written.", code="io_error"
            ) from None
        raise ToolError(
            f"Could not write '{path}': {exc.strerror or type(exc).__name__}.", code="io_error"
        ) from None


def _existing_mode(t: Target, st: os.stat_result | None, create_only: bool) -> int | None:
    if st is None:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise _swapped(t)
    if not stat.S_ISREG(st.st_mode):
        raise _not_a_file(t)
    if create_only:
        raise ToolError(
            f"'{t.path}' already exists. Use write_file to replace it, or edit_file to change it.",
            code="already_exists",
        )
    return stat.S_IMODE(st.st_mode)


def _write_at(dfd: int, t: Target, data: bytes, create_only: bool) -> bool:
    try:
        st: os.stat_result | None = os.stat(t.name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    mode = _existing_mode(t, st, create_only)
    tmp = f".{t.name[:100]}.{secrets.token_hex(4)}.assista-tmp"
    fd = os.open(
        tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o666, dir_fd=dfd
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
                if st is not None:
                    with contextlib.suppress(OSError):
                        os.fchown(handle.fileno(), st.st_uid, st.st_gid)
            os.fsync(handle.fileno())
        if create_only:
            _link_new(dfd, tmp, t)
        else:
            os.replace(tmp, t.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        with contextlib.suppress(OSError):
            os.fsync(dfd)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=dfd)
    return st is None


def _link_new(dfd: int, tmp: str, t: Target) -> None:
    """Publish ``tmp`` as ``t.name`` only if that name is still free."""
    try:
        os.link(tmp, t.name, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
    except FileExistsError:
        _existing_mode(t, os.stat(t.name, dir_fd=dfd, follow_symlinks=False), True)
        raise
    except OSError as exc:  # no hard links on this filesystem: check, then rename
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        with contextlib.suppress(FileNotFoundError):
            _existing_mode(t, os.stat(t.name, dir_fd=dfd, follow_symlinks=False), True)
        os.replace(tmp, t.name, src_dir_fd=dfd, dst_dir_fd=dfd)


def _write_by_path(t: Target, data: bytes, create_only: bool) -> bool:
    """Fallback without ``dir_fd``: path-based, with the same checks."""
    folder = os.path.dirname(t.real)
    os.makedirs(folder, exist_ok=True)
    try:
        st: os.stat_result | None = os.lstat(t.real)
    except FileNotFoundError:
        st = None
    mode = _existing_mode(t, st, create_only)
    tmp = os.path.join(folder, f".{t.name[:100]}.{secrets.token_hex(4)}.assista-tmp")
    try:
        with open(tmp, "xb") as handle:
            handle.write(data)
            handle.flush()
            if mode is not None:
                os.chmod(tmp, mode)
            os.fsync(handle.fileno())
        if create_only and os.path.lexists(t.real):
            _existing_mode(t, os.lstat(t.real), True)
        os.replace(tmp, t.real)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return st is None
