"""Indexing one knowledge base off the UI thread.

A plain Python thread with its own connection to the database (``open_store``: the window's
stays free for the chats), reporting progress through Qt signals, which reach the window
on its own thread (queued). Cancel stops between files, or between embedding
batches; what is done stays in the index.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager

import msgspec
from PySide6.QtCore import QObject, Signal

from desktop.core.errors import AssistaError
from desktop.knowledge.indexer import Indexer, IndexReport
from desktop.knowledge.search import embed_missing
from desktop.knowledge.store import KnowledgeStore
from desktop.ui.error_text import error_text, exception_text

log = logging.getLogger(__name__)

PROGRESS_EVERY_S = 0.05  # at most 20 progress signals a second


class IndexOutcome(msgspec.Struct, weakref=True):
    """How an indexing job ended: its report, embeddings made, cancelled or failed."""

    report: IndexReport | None = None
    embedded: int = 0
    cancelled: bool = False
    error: str | None = None  # the indexing (or embedding) failed: why
    failed: dict[str, str] = msgspec.field(default_factory=dict)


class IndexJob(QObject):
    progress = Signal(int, int, str)  # done, total, the file being read
    finished = Signal(object)  # IndexOutcome

    def __init__(self, open_store: Callable[[], AbstractContextManager[KnowledgeStore]],
                 base_name: str, parent: QObject | None = None) -> None:
        """``open_store()``: the knowledge bases on a connection of the job's own,
        closed when the job is done (keys and the proxy for the embedding requests)."""
        super().__init__(parent)
        self.open_store = open_store
        self.base_name = base_name
        self.cancel_event = threading.Event()
        self.worker: threading.Thread | None = None
        self._last = 0.0

    def start(self) -> None:
        self.worker = threading.Thread(target=self._run, name=f"index {self.base_name}",
                                       daemon=True)
        self.worker.start()

    def cancel(self) -> None:
        self.cancel_event.set()

    @property
    def running(self) -> bool:
        return self.worker is not None and self.worker.is_alive()

    def _progress(self, done: int, total: int, path: str) -> None:
        now = time.monotonic()
        if done == total or now - self._last >= PROGRESS_EVERY_S:
            self._last = now
            self.progress.emit(done, total, path)

    def _run(self) -> None:
        outcome = IndexOutcome()
        try:
            with self.open_store() as store:
                base = store.get(self.base_name)
                indexer = Indexer(store, base, self._progress)
                indexer.cancel = self.cancel_event
                outcome.report = indexer.run()
                outcome.failed = {path: error_text(outcome.report.failed_info.get(path), why)
                                  for path, why in outcome.report.failed.items()}
                if not self.cancel_event.is_set() and base.embedding is not None:
                    self.progress.emit(0, 0, "")  # embedding: no file count
                    outcome.embedded = embed_missing(store, store.get(self.base_name),
                                                     cancel=self.cancel_event)
        except AssistaError as exc:
            outcome.error = exception_text(exc)
        except Exception as exc:  # the window must hear of any failure, and keep running
            log.exception("indexing %s failed", self.base_name)
            outcome.error = f"{type(exc).__name__}: {exc}"
        outcome.cancelled = self.cancel_event.is_set()
        self.finished.emit(outcome)
