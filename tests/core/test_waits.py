"""ASSISTA_WAIT_SCALE shortens the app's waits for a locked database and between
retries (the tests use it to run whole retry schedules in milliseconds); without it,
or with anything but a number in (0, 1], the app's own waits are used."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.save_queue import FINAL_RETRY_DELAYS, STREAM_RETRY_DELAYS, SaveQueue
from desktop.core.waits import WAIT_SCALE_VARIABLE, wait_scale
from desktop.providers.retry import BASE_DELAY_S, MAX_DELAY_S, RetryPolicy
from desktop.storage.database import BUSY_TIMEOUT_MS, Database
from desktop.storage.sessions import SessionStore


@pytest.mark.parametrize(("value", "scale"), [
    (None, 1.0), ("0.02", 0.02), ("1", 1.0), ("", 1.0), ("soon", 1.0), ("0", 1.0),
    ("-0.5", 1.0), ("2", 1.0), ("nan", 1.0), ("inf", 1.0)])
def test_only_a_number_in_zero_to_one_shortens(value: str | None, scale: float) -> None:
    environ = {} if value is None else {WAIT_SCALE_VARIABLE: value}
    assert wait_scale(environ) == scale


def busy_timeout(path: Path) -> int:
    db = Database(path)
    try:
        row = db.query_one("PRAGMA busy_timeout")
        assert row is not None
        return int(row[0])
    finally:
        db.close()


def waits() -> tuple[tuple[float, ...], tuple[float, ...], float, float]:
    """A new save queue's pauses between attempts, a new retry policy's backoff."""
    queue = SaveQueue(SessionStore.__new__(SessionStore), "s")
    policy = RetryPolicy()
    return queue.stream_delays, queue.final_delays, policy.base_delay, policy.max_delay


def test_the_apps_waits_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(WAIT_SCALE_VARIABLE, raising=False)
    assert busy_timeout(tmp_path / "a.sqlite3") == BUSY_TIMEOUT_MS == 5000
    assert waits() == (STREAM_RETRY_DELAYS, FINAL_RETRY_DELAYS, BASE_DELAY_S, MAX_DELAY_S)


def test_the_scale_shortens_every_wait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(WAIT_SCALE_VARIABLE, "0.02")
    assert busy_timeout(tmp_path / "a.sqlite3") == 100
    stream, final, base, cap = waits()
    assert stream == tuple(d * 0.02 for d in STREAM_RETRY_DELAYS)
    assert final == tuple(d * 0.02 for d in FINAL_RETRY_DELAYS)
    assert (base, cap) == (BASE_DELAY_S * 0.02, MAX_DELAY_S * 0.02)
    # what a caller asks for is kept as it is
    assert RetryPolicy(base_delay=0.5).base_delay == 0.5
    assert SaveQueue(SessionStore.__new__(SessionStore), "s", final_delays=(1.0,)).final_delays \
        == (1.0,)
