"""Where Assista keeps its data: the per-user data directory or a portable one.

The default root is the platform's user data directory for the app "Assista"
(``~/.local/share/Assista`` on Linux, ``~/Library/Application Support/Assista``
on macOS, ``%LOCALAPPDATA%\\Assista`` on Windows). ``--data-dir DIR`` selects a
portable root instead. Directories the app creates get mode 0700 where the OS
supports it, since they hold chats and, without a system keyring, API keys.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import platformdirs

from desktop.core.errors import ReadOnlyStorageError, StorageError

APP_DIR_NAME = "Assista"
DB_FILENAME = "assista.sqlite3"
SECRETS_FILENAME = "secrets.json"
LOGS_DIRNAME = "logs"
DATA_DIR_FLAG = "--data-dir"


class DataPaths(NamedTuple):
    """The files and folders of one data root. Build it with :meth:`resolve`.

    (A named tuple rather than a dataclass: it is made before the window shows, and
    importing ``dataclasses`` costs a few milliseconds there.)"""

    root: Path
    portable: bool = False

    @property
    def db_path(self) -> Path:
        return self.root / DB_FILENAME

    @property
    def logs_dir(self) -> Path:
        return self.root / LOGS_DIRNAME

    @property
    def log_file(self) -> Path:
        return self.logs_dir / "assista.log"

    @property
    def secrets_path(self) -> Path:
        return self.root / SECRETS_FILENAME

    @classmethod
    def resolve(
        cls, data_dir: str | os.PathLike[str] | None = None, *, create: bool = True
    ) -> DataPaths:
        """The user data directory, or ``data_dir`` (portable mode) when given.

        With ``create`` the root and the logs folder are created (mode 0700).
        Raises :class:`StorageError` when the location is unusable.
        """
        if data_dir is not None and str(data_dir).strip():
            root = Path(data_dir).expanduser()
            portable = True
        else:
            root = Path(platformdirs.user_data_dir(APP_DIR_NAME, appauthor=False))
            portable = False
        paths = cls(root=root.absolute(), portable=portable)
        if create:
            paths.ensure()
        return paths

    def ensure(self) -> DataPaths:
        """Create the root and logs folders if missing; return ``self``."""
        _make_private_dir(self.root)
        _make_private_dir(self.logs_dir)
        return self


def data_dir_from_argv(argv: Sequence[str]) -> str | None:
    """The value of ``--data-dir DIR`` or ``--data-dir=DIR`` in ``argv``, if any.

    Raises :class:`StorageError` when the flag is given without a value.
    """
    value: str | None = None
    args = list(argv)
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == DATA_DIR_FLAG:
            if i + 1 >= len(args) or args[i + 1].startswith("--"):
                raise StorageError(f"{DATA_DIR_FLAG} needs a folder, e.g. {DATA_DIR_FLAG} ./data",
                                   code="data_dir_flag",
                                   params={"flag": DATA_DIR_FLAG,
                                           "example": f"{DATA_DIR_FLAG} ./data"})
            value = args[i + 1]
        elif arg.startswith(DATA_DIR_FLAG + "="):
            value = arg.split("=", 1)[1]
            if not value:
                raise StorageError(f"{DATA_DIR_FLAG} needs a folder, e.g. {DATA_DIR_FLAG}=./data",
                                   code="data_dir_flag",
                                   params={"flag": DATA_DIR_FLAG,
                                           "example": f"{DATA_DIR_FLAG}=./data"})
    return value


def cannot_write(exc: OSError) -> bool:
    """Whether ``exc`` means the place cannot be written (read-only, no permission)."""
    return exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)


def _make_private_dir(path: Path) -> None:
    """mkdir with mode 0700 for the leaf; existing folders keep their mode."""
    if path.exists():
        if not path.is_dir():
            raise StorageError(f"The data location {path} exists but is not a folder.",
                               code="data_location_not_folder", params={"folder": str(path)})
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir(mode=0o700)
    except FileExistsError:
        if not path.is_dir():
            raise StorageError(f"The data location {path} exists but is not a folder.",
                               code="data_location_not_folder",
                               params={"folder": str(path)}) from None
        return
    except OSError as exc:
        error = ReadOnlyStorageError if cannot_write(exc) else StorageError
        raise error(f"Cannot create the data folder {path}: {exc.strerror or exc}") from exc
    if os.name == "posix":
        # mkdir's mode is filtered by the umask; make sure it ends up exactly 0700.
        with contextlib.suppress(OSError):  # exotic filesystems
            os.chmod(path, stat.S_IRWXU)
