"""The window's integrity check on a thread: what it finds decides whether opening the
database checks again (and recovers a damaged file)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from desktop.app import AppContext
from desktop.core.messages import Message, TextPart
from desktop.storage import integrity_check
from desktop.storage.database import Database
from desktop.storage.instance_lock import acquire_instance_lock
from desktop.storage.integrity_check import IntegrityCheck
from desktop.storage.paths import DataPaths
from desktop.storage.sessions import SessionStore


def _filled(root: Path) -> DataPaths:
    paths = DataPaths.resolve(str(root))
    with Database(paths.db_path) as db:
        store = SessionStore(db)
        for i in range(20):
            chat = store.create_session(f"chat {i}")
            for j in range(20):
                store.save_message(chat.id, Message.user(f"message {i}-{j} " + "x" * 300))
        db.checkpoint()
    return paths


def _damage_middle_page(path: Path) -> None:
    data = bytearray(path.read_bytes())
    page = len(data) // 4096 // 2
    data[4096 * page : 4096 * (page + 1)] = b"\xa5" * 4096
    path.write_bytes(bytes(data))


def _checked(path: Path, *, unclean: bool = False) -> IntegrityCheck:
    check = IntegrityCheck(path, after_unclean_exit=unclean)
    check.start()
    assert check.wait(30)
    return check


def test_a_sound_file_is_opened_without_a_second_check(tmp_path: Path) -> None:
    paths = _filled(tmp_path)
    check = _checked(paths.db_path)
    assert check.verify() is False
    lock = acquire_instance_lock(paths)
    ctx = AppContext.open(paths.root, lock=lock, verify=check.verify(), log_to_stderr=False)
    try:
        assert len(ctx.sessions.list_sessions()) == 20 and ctx.notice is None
    finally:
        ctx.close()


def test_a_damaged_file_found_on_the_thread_is_recovered_when_opened(tmp_path: Path) -> None:
    paths = _filled(tmp_path)
    _damage_middle_page(paths.db_path)
    check = _checked(paths.db_path)
    assert check.verify() is True
    lock = acquire_instance_lock(paths)
    ctx = AppContext.open(paths.root, lock=lock, verify=check.verify(), log_to_stderr=False)
    try:
        assert ctx.notice is not None and "damaged" in ctx.notice
        assert list((paths.root / "backups").glob("damaged-*"))  # moved aside, kept
        assert ctx.sessions.list_sessions()  # what could be read was saved
    finally:
        ctx.close()


def test_not_a_database_counts_as_damage(tmp_path: Path) -> None:
    path = tmp_path / "assista.sqlite3"
    path.write_bytes(b"garbage " * 1000)
    assert _checked(path).verify() is True


def test_nothing_to_check_leaves_the_decision_to_opening(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    missing = _checked(tmp_path / "none.sqlite3")
    assert missing.verify() is None
    paths = _filled(tmp_path / "big")
    monkeypatch.setattr(integrity_check, "VERIFY_AUTO_MAX_BYTES", 1024)  # "a big file"
    big = _checked(paths.db_path)
    assert big.verify() is None  # not read: too long for every start
    assert big.stale_leaves() == []  # (the chats' branches are looked at all the same)
    assert _checked(paths.db_path, unclean=True).verify() is False  # after a crash: always


def test_the_check_runs_on_its_own_thread(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _filled(tmp_path)
    ran_on: list[threading.Thread] = []
    run = IntegrityCheck._run

    def recording(self: IntegrityCheck) -> None:
        ran_on.append(threading.current_thread())
        run(self)

    monkeypatch.setattr(IntegrityCheck, "_run", recording)
    assert _checked(paths.db_path).verify() is False
    assert ran_on and ran_on[0] is not threading.main_thread()


def test_a_branch_left_half_started_is_found_on_the_thread_and_restored_when_opened(
        tmp_path: Path) -> None:
    """The search for branches to restore reads every chat (40-170 ms at 10,000 chats
    on the window's thread): the check's thread does it, opening restores them."""
    paths = DataPaths.resolve(str(tmp_path / "data"))
    with Database(paths.db_path) as db:
        store = SessionStore(db)
        chat = store.create_session("kept")
        store.create_session("untouched")
        question = Message.user("q")
        answer = Message(role="assistant", parts=[TextPart(text="a")])
        store.save_message(chat.id, question)
        store.save_message(chat.id, answer)
        store.start_branch(chat.id, answer.id)  # a regeneration... then the app is killed
        db.checkpoint()
    check = _checked(paths.db_path)
    assert check.verify() is False
    stale = check.stale_leaves()
    assert stale is not None and [session for session, _leaf in stale] == [chat.id]
    lock = acquire_instance_lock(paths)
    ctx = AppContext.open(paths.root, lock=lock, verify=check.verify(), stale_leaves=stale,
                          log_to_stderr=False)
    try:
        shown = [m.text for m in ctx.sessions.load_messages(chat.id)]
        assert shown == ["q", "a"]
    finally:
        ctx.close()


def test_no_search_for_branches_when_the_file_was_not_checked(tmp_path: Path) -> None:
    path = tmp_path / "assista.sqlite3"
    path.write_bytes(b"garbage " * 1000)
    assert _checked(path).stale_leaves() is None  # (opening looks, after recovering)
