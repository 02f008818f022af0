"""Logging to a rotating file (and warnings to stderr) with secrets redacted.

:func:`setup_logging` configures the root logger, so library records (httpx
request lines with ``?key=...``, for example) pass through the same
:class:`SecretRedactor`. Redaction covers well-known key shapes, credential
headers and query parameters, and every exact value added to the redactor (the
app's :class:`SecretRedactor` is owned by its ``AppContext``; the SecretStore adds
each key it reads or writes). No module state: two contexts in one process (tests)
keep their own secrets.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import re
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.storage.paths import DataPaths

REDACTED = "[REDACTED]"
LOG_FILENAME = "assista.log"
MAX_BYTES = 1_000_000
BACKUP_COUNT = 5
MIN_SECRET_LENGTH = 4

_FILE_HANDLER_NAME = "assista-file"
_STDERR_HANDLER_NAME = "assista-stderr"
_FORMAT = "%(asctime)s %(levelname)-7s %(name)s [%(threadName)s] %(message)s"

_CREDENTIAL_NAMES = (
    r"(?:x-goog-|x-)?api[_-]?key|(?:proxy-)?authorization|access[_-]?token|"
    r"refresh[_-]?token|client[_-]?secret|password|secret[_-]?key"
)

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # A password in a URL (https://user:secret@host/...): the user name stays.
    (re.compile(r"\b([a-z][a-z0-9+.-]*://[^/\s:@'\"]*:)[^/\s@'\"]+@", re.IGNORECASE),
     rf"\1{REDACTED}@"),
    # Bearer tokens anywhere: keep the scheme, hide the credential.
    (re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/=:\-]{4,}", re.IGNORECASE), rf"\1 {REDACTED}"),
    # Provider key shapes.
    (re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{8,}"), REDACTED),
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}"), REDACTED),
    # Query parameters: ?key=..., &api_key=..., &access_token=...
    (
        re.compile(rf"([?&;](?:key|token|{_CREDENTIAL_NAMES})=)[^&\s'\"#<>]+", re.IGNORECASE),
        rf"\1{REDACTED}",
    ),
)

# Header or keyword values in reprs: 'x-api-key': 'v', b"authorization", b"v",
# api_key='v', Authorization: v, {"apiKey": "v"}.
_NAMED_VALUE = re.compile(
    rf"(?P<pre>\b(?:{_CREDENTIAL_NAMES})(?:['\"]\s*[:=,]|\s*[:=])\s*(?:b(?=['\"]))?)"
    r"(?:(?P<q>['\"])(?P<qv>.*?)(?P=q)"
    r"|(?P<v>(?:(?:Bearer|Basic|Digest|Token)\s+)?[^\s,;&}\])'\"]+))",
    re.IGNORECASE,
)

_setup_lock = threading.Lock()


def redact(text: str) -> str:
    """``text`` with credential shapes (keys, bearer tokens, credential headers and
    query parameters) replaced by ``[REDACTED]``."""
    if not text:
        return text
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return _NAMED_VALUE.sub(_replace_named_value, text)


def _replace_named_value(match: re.Match[str]) -> str:
    quote = match.group("q")
    if quote:
        return f"{match.group('pre')}{quote}{REDACTED}{quote}"
    if "[REDACTED" in match.group("v"):
        return match.group(0)  # already redacted by an earlier rule
    return f"{match.group('pre')}{REDACTED}"


class SecretRedactor(logging.Filter):
    """The exact secret values to hide, plus :func:`redact`'s shapes; as a logging
    filter it rewrites each record's message, exception and stack text."""

    def __init__(self) -> None:
        super().__init__()
        self._values: set[str] = set()
        self._exact: re.Pattern[str] | None = None
        self._lock = threading.Lock()

    def add(self, value: str | None) -> None:
        """Redact this exact value from now on (a value shorter than
        :data:`MIN_SECRET_LENGTH` is ignored: hiding it would garble ordinary text)."""
        if not value or len(value.strip()) < MIN_SECRET_LENGTH:
            return
        value = value.strip()
        with self._lock:
            if value in self._values:
                return
            self._values.add(value)
            # Longest first, so a secret containing another is hidden whole.
            ordered = sorted(self._values, key=len, reverse=True)
            self._exact = re.compile("|".join(re.escape(v) for v in ordered))

    def values(self) -> frozenset[str]:
        """The exact values hidden (the request inspector hides them too)."""
        with self._lock:
            return frozenset(self._values)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._exact = None

    def redact(self, text: str) -> str:
        exact = self._exact
        if text and exact is not None:
            text = exact.sub(REDACTED, text)
        return redact(text)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: keep what we can, redacted
            message = f"{record.msg!s} {record.args!r}"
        record.msg = self.redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


class RedactingFormatter(logging.Formatter):
    """Belt and braces: redacts the final line too (covers custom formatters' fields)."""

    def __init__(self, fmt: str, redactor: SecretRedactor) -> None:
        super().__init__(fmt)
        self._redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        return self._redactor.redact(super().format(record))


def setup_logging(
    paths: DataPaths,
    level: int | str = logging.INFO,
    *,
    stderr: bool = True,
    stderr_level: int | str = logging.WARNING,
    redactor: SecretRedactor | None = None,
    to_file: bool = True,
) -> Path:
    """Log to ``paths.logs_dir/assista.log`` (1 MB × 5) and, with ``stderr``, warnings
    (``stderr_level`` and up) to stderr, both through ``redactor`` (default: one that
    knows only the credential shapes).

    Safe to call again: the handlers are replaced, not duplicated. Returns the log file
    (not written without ``to_file``: a data folder opened read-only). A log file that
    cannot be written (a full disk) is said once on stderr, then left alone.
    """
    log_file = Path(paths.logs_dir) / LOG_FILENAME
    with _setup_lock:
        root = logging.getLogger()
        _remove_handlers(root)
        redactor = redactor or SecretRedactor()
        formatter = RedactingFormatter(_FORMAT, redactor)
        root_level = logging.CRITICAL
        if to_file:
            Path(paths.logs_dir).mkdir(parents=True, exist_ok=True)
            file_handler = _LogFile(log_file)
            file_handler.set_name(_FILE_HANDLER_NAME)
            file_handler.setLevel(level)
            file_handler.setFormatter(formatter)
            file_handler.addFilter(redactor)
            root.addHandler(file_handler)
            root_level = file_handler.level
        if stderr:
            stderr_handler = logging.StreamHandler(sys.stderr)
            stderr_handler.set_name(_STDERR_HANDLER_NAME)
            stderr_handler.setLevel(stderr_level)
            stderr_handler.setFormatter(formatter)
            stderr_handler.addFilter(redactor)
            root.addHandler(stderr_handler)
            root_level = min(root_level, stderr_handler.level)
        root.setLevel(root_level)
        logging.captureWarnings(True)
    return log_file


class _LogFile(logging.handlers.RotatingFileHandler):
    """The rotating log file. When it cannot be written (a full disk, a size limit, a
    folder made read-only) one line says so on stderr and logging to the file stops,
    instead of a traceback for every record."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, maxBytes=MAX_BYTES, backupCount=BACKUP_COUNT,
                         encoding="utf-8", delay=True)
        self.failed = False

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        if self.failed:
            return
        self.failed = True
        error = sys.exc_info()[1]
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        with contextlib.suppress(Exception):  # stderr may be gone too
            sys.stderr.write(f"assista: warning: cannot write the log file "
                             f"{self.baseFilename} ({reason}); logging to it stops\n")
            sys.stderr.flush()
        with contextlib.suppress(Exception):
            self.close()


def shutdown_logging() -> None:
    """Remove and close the handlers :func:`setup_logging` added."""
    with _setup_lock:
        _remove_handlers(logging.getLogger())


def _remove_handlers(root: logging.Logger) -> None:
    for handler in list(root.handlers):
        if handler.get_name() in (_FILE_HANDLER_NAME, _STDERR_HANDLER_NAME):
            root.removeHandler(handler)
            handler.close()
