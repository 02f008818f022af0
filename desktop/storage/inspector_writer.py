"""The request inspector's writer: batches from the streaming path stored on a thread.

The provider layer hands :class:`InspectorWriter.write` a batch and returns at once;
one plain Python thread (its own, not the message saver's: a slow inspector write
must never hold up saving an answer) stores batches in the order they came. After
each finished exchange the retention limits are applied. A failed write is logged
and dropped: the inspector is a diagnostic, it must never break a chat.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from desktop.core.exchange import CaptureBatch
from desktop.core.thread_names import name_os_thread
from desktop.storage.inspector_store import INSPECTOR_FILENAME, InspectorStore

__all__ = ["InspectorWriter", "RetentionLimits"]

log = logging.getLogger(__name__)

#: (days, megabytes) to keep; read when they are applied (Settings may change them).
RetentionLimits = Callable[[], tuple[float, float]]


class InspectorWriter:
    def __init__(self, root: Path, limits: RetentionLimits,
                 secrets: Callable[[], Iterable[str]] = tuple, *,
                 read_only: bool = False) -> None:
        """``read_only``: a data folder that cannot be written; nothing is recorded."""
        self.path = root / INSPECTOR_FILENAME
        self.read_only = read_only
        self._limits = limits
        self._secrets = secrets
        self._store: InspectorStore | None = None
        self._opening = threading.Lock()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="assista-inspector",
                                          initializer=name_os_thread)
        self.failures = 0

    @property
    def store(self) -> InspectorStore:
        """The database, opened on first use (by the writer thread or a reader) — once:
        two threads opening it at the same moment raced each other's WAL switch
        ("database is locked") and left a second connection open."""
        with self._opening:
            if self._store is None:
                self._store = InspectorStore(self.path, read_only=self.read_only)
            return self._store

    # -- ExchangeWriter

    def write(self, batch: CaptureBatch) -> None:
        if self.read_only:
            return
        try:
            self._thread.submit(self._write, batch)
        except RuntimeError:  # closed (the app is quitting): a stream must not fail for it
            log.info("the request inspector is closed; exchange %s not stored",
                     batch.exchange_id)

    def known_secrets(self) -> Iterable[str]:
        return self._secrets()

    # -- the thread

    def _write(self, batch: CaptureBatch) -> None:
        try:
            self.store.write(batch, self._secrets())
            if batch.tail is not None:
                self._apply_retention()
        except Exception as exc:  # never let a diagnostic break anything
            self.failures += 1
            log.warning("the request inspector could not store exchange %s: %s",
                        batch.exchange_id, exc)

    def _apply_retention(self) -> int:
        if self.read_only:
            return 0
        days, megabytes = self._limits()
        return self.store.enforce_retention(days, int(megabytes * 1024 * 1024))

    def apply_retention(self) -> Future[int]:
        """Apply the limits on the writer thread (at start, after a settings change)."""
        return self._thread.submit(self._apply_retention)

    def clear_all(self) -> int:
        """Delete every recorded request (on the writer thread, after what is queued);
        how many there were."""
        return self._thread.submit(lambda: self.store.enforce_retention(0, 0)).result(30)

    def flush(self, timeout: float | None = 10.0) -> None:
        """Wait until every batch handed over so far is stored."""
        self._thread.submit(lambda: None).result(timeout)

    def close(self) -> None:
        self._thread.shutdown(wait=True)
        if self._store is not None:
            self._store.close()
            self._store = None
