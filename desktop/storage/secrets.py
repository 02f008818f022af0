"""API keys: the OS keyring when there is one, else a private JSON file.

Keys are stored under the service ``assista-desktop`` with the provider id as
user name. When no usable keyring exists (``keyring``'s fail/null backend, a
chainer with nothing to chain, or a backend that raises), keys go to
``DataPaths.secrets_path``: a JSON file created with mode 0600 and replaced
atomically. :attr:`SecretStore.is_secure` tells the UI which case applies.

Every key read or written is added to the store's :attr:`SecretStore.redactor` (the
app context's) so it is redacted from logs. Keys are never logged or written to the database.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import keyring
import keyring.backend
import keyring.errors
from keyring.backends import chainer, fail, null

from desktop.core.errors import StorageError
from desktop.storage.logs import SecretRedactor
from desktop.storage.paths import DataPaths

log = logging.getLogger(__name__)

SERVICE_NAME = "assista-desktop"
FILE_BACKEND_NAME = "file"
FILE_FORMAT_VERSION = 1
_PROBE_USER = "__assista_probe__"
_O_BINARY: int = getattr(os, "O_BINARY", 0)

_T = TypeVar("_T")

INSECURE_NOTICE = "No system keyring found; keys are stored in a file readable only by you."


class SecretStore:
    """Get, set and delete API keys per provider id."""

    def __init__(
        self,
        location: DataPaths | str | os.PathLike[str],
        *,
        backend: keyring.backend.KeyringBackend | None = None,
        force_file: bool | None = None,
        probe: bool = False,
        redactor: SecretRedactor | None = None,
    ) -> None:
        """Use ``backend`` (default: keyring's own choice) unless it is unusable.

        ``location`` is the data paths (the file is ``secrets_path``) or the file itself.
        ``force_file`` skips the keyring entirely (tests, portable mode); when not
        given it is ``location.portable`` for :class:`DataPaths`, else False, so a
        portable data folder carries its keys with it.
        ``probe`` makes one harmless read now, so :attr:`is_secure` is accurate
        before the first real use (this may show an unlock prompt on some systems).
        ``redactor`` is told every key read or written, to keep it out of the logs.
        """
        self.redactor = redactor
        if isinstance(location, DataPaths):
            self._path = location.secrets_path
            if force_file is None:
                force_file = location.portable
        else:
            self._path = Path(location)
        self._lock = threading.RLock()
        self._keyring: keyring.backend.KeyringBackend | None = None
        if not force_file:
            try:
                candidate = backend if backend is not None else keyring.get_keyring()
            except Exception as exc:
                log.warning("No system keyring available: %s", type(exc).__name__)
                candidate = None
            if candidate is not None and _is_usable(candidate):
                self._keyring = candidate
            elif candidate is not None:
                log.warning(
                    "No usable system keyring (%s); API keys go to a private file", candidate
                )
        if probe and self._keyring is not None:
            self._try_keyring(lambda kr: kr.get_password(SERVICE_NAME, _PROBE_USER))

    # -- state ---------------------------------------------------------------------

    @property
    def is_secure(self) -> bool:
        """True when keys are in a system keyring, False for the file fallback."""
        return self._keyring is not None

    @property
    def backend_name(self) -> str:
        kr = self._keyring
        if kr is None:
            return FILE_BACKEND_NAME
        return str(getattr(type(kr), "name", type(kr).__name__))

    @property
    def notice(self) -> str | None:
        """A sentence for the UI when keys are not in a system keyring."""
        return None if self.is_secure else INSECURE_NOTICE

    @property
    def path(self) -> Path:
        return self._path

    # -- API -----------------------------------------------------------------------

    def get(self, provider_id: str) -> str | None:
        _check_id(provider_id)
        with self._lock:
            value: str | None = None
            if self._keyring is not None:
                value = self._try_keyring(lambda kr: kr.get_password(SERVICE_NAME, provider_id))
            if value is None:
                value = self._read_file(tolerant=self._keyring is not None).get(provider_id)
                if value is not None and self._keyring is not None:
                    self._migrate_to_keyring(provider_id, value)
        if value and self.redactor is not None:
            self.redactor.add(value)
        return value

    def set(self, provider_id: str, key: str) -> None:
        """Store ``key``; an empty key deletes the entry."""
        _check_id(provider_id)
        key = key.strip()
        if not key:
            self.delete(provider_id)
            return
        if self.redactor is not None:
            self.redactor.add(key)
        with self._lock:
            if self._keyring_set(provider_id, key):
                self._remove_from_file(provider_id)
                return
            keys = self._read_file()
            keys[provider_id] = key
            self._write_file(keys)

    def delete(self, provider_id: str) -> None:
        """Remove the key from the keyring and the file; missing keys are fine."""
        _check_id(provider_id)
        with self._lock:
            if self._keyring is not None:
                try:
                    self._keyring.delete_password(SERVICE_NAME, provider_id)
                except keyring.errors.PasswordDeleteError:
                    pass  # not there
                except Exception as exc:
                    self._fall_back(exc)
            self._remove_from_file(provider_id)

    # -- keyring -------------------------------------------------------------------

    def _try_keyring(self, op: Callable[[keyring.backend.KeyringBackend], _T]) -> _T | None:
        kr = self._keyring
        if kr is None:
            return None
        try:
            return op(kr)
        except Exception as exc:
            self._fall_back(exc)
            return None

    def _keyring_set(self, provider_id: str, value: str) -> bool:
        kr = self._keyring
        if kr is None:
            return False
        try:
            kr.set_password(SERVICE_NAME, provider_id, value)
        except Exception as exc:
            self._fall_back(exc)
            return False
        return True

    def _fall_back(self, exc: Exception) -> None:
        # Only the exception type: backend messages could in theory echo inputs.
        log.warning(
            "System keyring %s failed (%s); API keys go to a private file from now on",
            self.backend_name,
            type(exc).__name__,
        )
        self._keyring = None

    def _migrate_to_keyring(self, provider_id: str, value: str) -> None:
        if self._keyring_set(provider_id, value):
            log.info("Moved the API key of provider %s from the file to the keyring", provider_id)
            self._remove_from_file(provider_id)

    # -- file ----------------------------------------------------------------------

    def _read_file(self, *, tolerant: bool = False) -> dict[str, str]:
        """The keys in the file. A damaged file raises, or with ``tolerant`` reads as empty
        (used while the keyring is the primary store, so a stale file cannot block it)."""
        try:
            return self._parse_file()
        except StorageError as exc:
            if not tolerant:
                raise
            log.warning("%s Ignoring it while the system keyring is in use.", exc)
            return {}

    def _parse_file(self) -> dict[str, str]:
        try:
            with open(self._path, encoding="utf-8") as fh:
                _tighten_mode(self._path, fh.fileno())
                data = json.load(fh)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise StorageError(
                f"The key file {self._path} cannot be read ({type(exc).__name__}). "
                "Fix or delete it and enter the API keys again.",
                code="key_file_unreadable",
                params={"file": str(self._path), "detail": type(exc).__name__}
            ) from exc
        keys = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(keys, dict):
            raise StorageError(f"The key file {self._path} has an unexpected format.",
                               code="key_file_format", params={"file": str(self._path)})
        return {str(k): v for k, v in keys.items() if isinstance(v, str)}

    def _write_file(self, keys: dict[str, str]) -> None:
        payload = json.dumps({"version": FILE_FORMAT_VERSION, "keys": keys}, indent=2) + "\n"
        directory = self._path.parent
        tmp = directory / f".{self._path.name}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY, 0o600)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(payload.encode("utf-8"))
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, self._path)
            except BaseException:
                with contextlib.suppress(OSError):
                    tmp.unlink()
                raise
            _fsync_dir(directory)
        except OSError as exc:
            raise StorageError(
                f"Cannot write the key file {self._path}: {exc.strerror or exc}",
                code="key_file_unwritable",
                params={"file": str(self._path), "detail": exc.strerror or str(exc)}
            ) from exc

    def _remove_from_file(self, provider_id: str) -> None:
        if not self._path.exists():
            return
        keys = self._read_file(tolerant=self._keyring is not None)
        if provider_id in keys:
            del keys[provider_id]
            self._write_file(keys)


def _is_usable(backend: keyring.backend.KeyringBackend) -> bool:
    if isinstance(backend, fail.Keyring | null.Keyring):
        return False
    if isinstance(backend, chainer.ChainerBackend):
        try:
            return len(backend.backends) > 0
        except Exception:
            return False
    return True


def _check_id(provider_id: str) -> None:
    if not provider_id or not provider_id.strip():
        raise ValueError("provider_id must not be empty")


def _tighten_mode(path: Path, fd: int) -> None:
    """Re-restrict a key file someone loosened (POSIX only)."""
    if os.name != "posix":
        return
    mode = stat.S_IMODE(os.fstat(fd).st_mode)
    if mode & 0o077:
        log.warning(
            "Key file %s was readable by others (mode %o); restricting it to 0600", path, mode
        )
        with contextlib.suppress(OSError):
            os.fchmod(fd, 0o600)


def _fsync_dir(directory: Path) -> None:
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
