"""The window's sync: runs off the UI thread after a change, on a timer and on Sync now;
a failed run is shown and the next catches up; the status bar's words; a merge from
another device shows in the chat list and in the open chat."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync

from desktop.app import AppContext
from desktop.sync.config import PASSWORD_ID
from desktop.sync.run import SyncEngine, SyncReport
from desktop.sync.status import SyncStatus
from desktop.ui.window.sync_scheduler import SyncScheduler, SyncStatusLabel, status_text
from tests.sync.servers import PASSWORD, USER, WebDavServer
from tests.ui.conversation_helpers import make_chat, make_window
from tests.ui.sync_helpers import OtherDevice, configure

NOW = 1_700_000_000.0


@pytest.mark.parametrize(("status", "kwargs", "text"), [
    (SyncStatus(None, 0, None), {}, "Not synced yet"),
    (SyncStatus(NOW - 5, 0, None), {}, "Synced just now"),
    (SyncStatus(NOW - 125, 0, None), {}, "Synced 2 min ago"),
    (SyncStatus(NOW - 3 * 3600, 0, None), {}, "Synced 3 h ago"),
    (SyncStatus(NOW - 3 * 86400, 0, None), {}, "Synced 3 days ago"),
    (SyncStatus(NOW - 60, 3, None), {}, "3 changes waiting"),
    (SyncStatus(NOW - 60, 1, None), {}, "1 change waiting"),
    (SyncStatus(NOW - 60, 3, "Sync target x cannot be reached\nwhile listing"), {},
     "Sync failed: Sync target x cannot be reached while listing"),
    (SyncStatus(NOW, 0, None), {"error": "Set the sync passphrase"},
     "Sync failed: Set the sync passphrase"),
    (SyncStatus(NOW, 0, "old"), {"running": True}, "Syncing…"),
])
def test_status_text(status: SyncStatus, kwargs: dict[str, Any], text: str) -> None:
    assert status_text(status, NOW, **kwargs) == text


def test_a_long_error_is_one_short_line() -> None:
    text = status_text(SyncStatus(None, 0, "word " * 100), NOW)
    assert "\n" not in text and len(text) < 110 and text.endswith("…")


@pytest.fixture
def ctx(open_ctx: Callable[..., AppContext]) -> AppContext:
    return open_ctx()


@pytest.fixture
def scheduler(qtbot: Any, ctx: AppContext, tmp_path: Path) -> Iterator[SyncScheduler]:
    configure(ctx, (tmp_path / "shared").as_uri())
    made = SyncScheduler(ctx.sync, debounce_ms=20, period_ms=3_600_000)
    yield made
    made.shutdown()


def test_runs_in_a_worker_after_a_change_and_the_label_says_so(
    qtbot: Any, ctx: AppContext, scheduler: SyncScheduler, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    label = SyncStatusLabel(scheduler)
    qtbot.addWidget(label)
    assert not label.isHidden() and label.text() == "Not synced yet"
    make_chat(ctx, "Local chat", "written here")
    label.refresh()
    assert label.text() == "2 changes waiting"  # the chat and its message
    threads: list[threading.Thread] = []
    original = SyncEngine.run

    def run(engine: SyncEngine) -> SyncReport:
        threads.append(threading.current_thread())
        return original(engine)

    monkeypatch.setattr(SyncEngine, "run", run)
    with qtbot.waitSignal(scheduler.finished, timeout=30000) as blocker:
        scheduler.changed()
    report, error = blocker.args
    assert error == "" and report.uploaded >= 1
    assert len(threads) == 1 and threads[0] is not threading.main_thread()
    assert scheduler._engine is not None  # kept: the key is derived once
    assert label.text() == "Synced just now"
    other = OtherDevice(tmp_path / "other", scheduler.config.url)
    other.sync()
    assert [s.title for s in other.sessions.list_sessions()] == ["Local chat"]
    other.close()


def test_one_run_at_a_time_and_sync_now_during_a_run_runs_once_more(
    qtbot: Any, scheduler: SyncScheduler,
) -> None:
    finished: list[object] = []
    scheduler.finished.connect(lambda report, _error: finished.append(report))
    assert scheduler.sync_now()
    assert scheduler.running and scheduler.text() == "Syncing…"
    first = scheduler._thread
    assert scheduler.sync_now()  # queued behind the running one, not a second thread
    assert scheduler._thread is first
    qtbot.waitUntil(lambda: len(finished) == 2 and not scheduler.running, timeout=30000)
    assert all(report is not None for report in finished)


def test_the_timer_runs_it_without_changes(qtbot: Any, scheduler: SyncScheduler) -> None:
    scheduler.set_timing(3_600_000, 30)
    scheduler.reconfigure()
    for _ in range(2):
        with qtbot.waitSignal(scheduler.finished, timeout=30000):
            pass


def test_switched_off_or_not_configured_it_does_not_run(
    qtbot: Any, open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    bare = SyncScheduler(ctx.sync, debounce_ms=1)
    label = SyncStatusLabel(bare)
    qtbot.addWidget(label)
    assert not bare.active and not bare.sync_now() and label.isHidden()
    configure(ctx, (tmp_path / "shared").as_uri(), enabled=False)
    bare.reconfigure()
    bare.changed()
    assert not bare.running and label.isHidden()
    with qtbot.waitSignal(bare.finished, timeout=30000):
        assert bare.sync_now()  # Sync now works while automatic sync is off
    bare.shutdown()


def test_a_failed_run_is_shown_and_the_next_catches_up(
    qtbot: Any, open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    root = tmp_path / "dav"
    root.mkdir()
    server = WebDavServer(root)
    ctx = open_ctx()
    scheduler = SyncScheduler(ctx.sync, debounce_ms=20, period_ms=3_600_000)
    label = SyncStatusLabel(scheduler)
    qtbot.addWidget(label)
    try:
        configure(ctx, f"webdav://127.0.0.1:{server.port}/dav/sync", user=USER,
                  secret=PASSWORD, secret_id=PASSWORD_ID)
        make_chat(ctx, "Written offline", "while the server was down")
        server.faults.mode = "503"
        with qtbot.waitSignal(scheduler.finished, timeout=30000) as blocker:
            scheduler.reconfigure()
        assert blocker.args[0] is None and "503" in blocker.args[1]
        assert label.text().startswith("Sync failed: The sync target webdav://") or \
            label.text().startswith("Sync failed: The sync target http://")
        assert "503" in label.toolTip()
        server.faults.mode = None
        with qtbot.waitSignal(scheduler.finished, timeout=30000) as blocker:
            scheduler.sync_now()
        assert blocker.args[0].uploaded >= 1 and label.text() == "Synced just now"
    finally:
        scheduler.shutdown()
        server.stop()


def test_a_missing_passphrase_is_a_failure_not_a_crash(
    qtbot: Any, open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    configure(ctx, (tmp_path / "shared").as_uri())
    ctx.secrets.delete("sync:passphrase")
    scheduler = SyncScheduler(ctx.sync, debounce_ms=1)
    with qtbot.waitSignal(scheduler.finished, timeout=30000) as blocker:
        pass
    assert blocker.args == [None, "Set the sync passphrase in Settings → Sync."]
    assert scheduler.text() == "Sync failed: Set the sync passphrase in Settings → Sync."
    scheduler.shutdown()


def test_a_merge_from_another_device_shows_in_the_chat_list_and_the_open_chat(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path,
) -> None:
    ctx = open_ctx()
    url = (tmp_path / "shared").as_uri()
    configure(ctx, url)
    mine = make_chat(ctx, "Here", "first question", "first answer")
    window = make_window(qtbot, ctx)
    sync = window.sync
    sync.set_timing(3_600_000, 3_600_000)  # only what the test starts
    label = next(w for w in window.statusBar().findChildren(SyncStatusLabel))
    assert label.isVisible()
    with qtbot.waitSignal(sync.finished, timeout=30000):
        sync.sync_now()
    assert label.text() == "Synced just now"

    other = OtherDevice(tmp_path / "other", url)
    other.sync()
    theirs = other.chat("From the laptop", "asked on the laptop")
    other.say(mine, "a follow-up from the laptop")
    other.sync()
    other.close()

    window.controller.open_session(mine)
    assert [m.text for m in window.controller.history][-1] == "first answer"
    with qtbot.waitSignal(sync.finished, timeout=30000) as blocker:
        sync.sync_now()
    assert blocker.args[0].merged.messages == 2
    assert window.sessions.item_for(theirs) is not None
    assert [m.text for m in window.controller.history][-1] == "a follow-up from the laptop"
    assert window.controller.session_id == mine
