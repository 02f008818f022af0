"""The inspector's database: retention by age and by size, on a real SQLite file."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from desktop.core.exchange import CaptureBatch, ExchangeHead, ExchangeTail
from desktop.storage.inspector_store import InspectorStore
from desktop.storage.inspector_writer import InspectorWriter


def batch(exchange_id: str, started_at: float, chunk_bytes: int = 1000,
          chunks: int = 20) -> CaptureBatch:
    head = ExchangeHead(id=exchange_id, started_at=started_at, provider="P", provider_id=None,
                        kind="openai", model="m", session_id="s", message_id=exchange_id,
                        url="http://127.0.0.1/v1/chat/completions", body=b'{"model":"m"}')
    data = [(i * 0.01, (f"data: {exchange_id} {i} ".encode() + b"x" * chunk_bytes))
            for i in range(chunks)]
    return CaptureBatch(exchange_id, (), head, 0, data, ExchangeTail(status=200, end_s=1.0))


def test_retention_by_days_deletes_only_old_exchanges(tmp_path: Path) -> None:
    store = InspectorStore(tmp_path / "inspector.sqlite")
    now = time.time()
    for n, age_days in enumerate((40, 20, 5, 1)):
        store.write(batch(f"e{n}", now - age_days * 86400))
    deleted = store.enforce_retention(14, 10**9, now=now)
    assert deleted == 2
    assert [r.id for r in store.for_session("s")] == ["e2", "e3"]
    assert store.get("e0") is None
    assert store._conn.execute("SELECT COUNT(*) FROM chunks WHERE exchange_id IN "
                               "('e0','e1')").fetchone()[0] == 0


def test_retention_by_size_deletes_the_oldest_and_shrinks_the_file(tmp_path: Path) -> None:
    path = tmp_path / "inspector.sqlite"
    store = InspectorStore(path)
    now = time.time()
    for n in range(60):  # about 1.2 MB of chunks
        store.write(batch(f"e{n:02d}", now - 3600 + n))
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = path.stat().st_size
    limit = 400 * 1024
    deleted = store.enforce_retention(365, limit, now=now)
    assert deleted > 0
    assert store.size_bytes() <= limit
    kept = [r.id for r in store.for_session("s")]
    assert kept and kept == [f"e{n:02d}" for n in range(60 - len(kept), 60)]  # the newest
    assert path.stat().st_size < before  # pages given back, not just freed


def test_the_writer_applies_retention_after_each_exchange(tmp_path: Path) -> None:
    writer = InspectorWriter(tmp_path, lambda: (1, 1))  # 1 day, 1 MB
    try:
        old = time.time() - 3 * 86400
        writer.write(batch("old", old))
        writer.write(batch("new", time.time()))
        writer.flush()
        assert writer.store.get("old") is None and writer.store.get("new") is not None
    finally:
        writer.close()


def test_a_failing_write_is_logged_not_raised(tmp_path: Path) -> None:
    writer = InspectorWriter(tmp_path, lambda: (1, 1))
    try:
        broken = batch("x", time.time())
        broken.chunks = [(0.0, "not bytes")]  # type: ignore[list-item]
        writer.write(broken)
        writer.flush()
        assert writer.failures == 1
    finally:
        writer.close()


def test_a_batch_after_closing_is_dropped_quietly(tmp_path: Path) -> None:
    writer = InspectorWriter(tmp_path, lambda: (1, 1))
    writer.close()
    writer.write(batch("late", time.time()))  # no exception: the stream goes on


def test_threads_opening_the_store_at_once_share_one_connection(tmp_path: Path) -> None:
    """The writer thread and a reader asking for the store at the same moment: one
    database connection, not two racing each other's WAL switch."""
    writer = InspectorWriter(tmp_path, lambda: (30.0, 100.0))
    start = threading.Barrier(8)
    stores: list[InspectorStore] = []

    def reach() -> None:
        start.wait()
        stores.append(writer.store)

    threads = [threading.Thread(target=reach) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(stores) == 8 and all(store is stores[0] for store in stores)
    writer.close()
