"""SessionStore: sessions and messages on a real SQLite file."""

from __future__ import annotations

import asyncio

import pytest

from desktop.core.errors import StorageError
from desktop.core.messages import Message, TextPart, ToolCallPart
from desktop.storage.database import Database
from desktop.storage.sessions import SessionInfo, SessionStore

from .conftest import full_message


def test_create_get_list(store: SessionStore) -> None:
    a = store.create_session()
    b = store.create_session("  Second\n chat ", provider_id="p1", model="m1", workspace="/w")
    assert a.title == "New chat"
    assert b.title == "Second chat"
    assert (b.provider_id, b.model, b.workspace, b.message_count) == ("p1", "m1", "/w", 0)
    assert store.get_session(b.id) == b
    assert store.get_session("nope") is None
    assert [s.id for s in store.list_sessions()] == [b.id, a.id]


def test_a_limited_list_is_the_first_of_the_whole_list(store: SessionStore) -> None:
    chats = [store.create_session(f"chat {n}") for n in range(7)]
    store.set_pinned(chats[0].id, True)
    store.save_message(chats[3].id, Message.user("hi"))
    store.set_archived(chats[5].id, True)
    whole = store.list_sessions()
    assert [s.title for s in whole[:3]] == ["chat 0", "chat 3", "chat 6"]
    for limit in (0, 1, 3, 6, 10):
        assert store.list_sessions(limit=limit) == whole[:limit]
    assert store.list_sessions(archived=True, limit=1) == store.list_sessions(archived=True)
    assert store.list_sessions(limit=2)[1].message_count == 1


def test_a_page_with_several_pinned_chats_and_ties_is_the_first_of_the_whole_list(
        db: Database, store: SessionStore) -> None:
    chats = [store.create_session(f"chat {n}") for n in range(9)]
    for n in (1, 4, 7):
        store.set_pinned(chats[n].id, True)
    # the same time for some (ties go to the newest made, then the last inserted)
    db.execute("UPDATE sessions SET updated_at = 5.0, created_at = 1.0 WHERE id IN (?, ?, ?)",
               (chats[2].id, chats[3].id, chats[4].id))
    db.execute("UPDATE sessions SET updated_at = 5.0 WHERE id = ?", (chats[7].id,))
    whole = store.list_sessions(archived=None)
    assert [s.pinned for s in whole] == [True] * 3 + [False] * 6
    for limit in range(11):
        assert store.list_sessions(archived=None, limit=limit) == whole[:limit]


def test_a_page_of_the_list_is_read_along_the_newest_first_index(
        db: Database, store: SessionStore) -> None:
    """Not sorted out of every chat (7-15 ms a page at 10,000 chats, at each listing):
    the chats that are not pinned are read newest first from ``sessions_by_updated``."""
    store.create_session("a chat")
    statements: list[str] = []
    with db.snapshot() as conn:
        conn.set_trace_callback(statements.append)
        try:
            store.list_sessions(limit=200)
        finally:
            conn.set_trace_callback(None)
        page = next(sql for sql in statements if "FROM sessions" in sql)
        plan = [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {page}")]
    assert "SCAN s USING INDEX sessions_by_updated" in plan, plan


def test_list_orders_by_last_update(store: SessionStore) -> None:
    a = store.create_session("a")
    b = store.create_session("b")
    c = store.create_session("c")
    store.save_message(a.id, Message.user("hi"))
    assert [s.title for s in store.list_sessions()] == ["a", "c", "b"]
    store.rename_session(b.id, "b2")
    assert [s.title for s in store.list_sessions()] == ["b2", "a", "c"]
    listed = {s.id: s for s in store.list_sessions()}
    assert listed[a.id].message_count == 1
    assert listed[c.id].message_count == 0


def test_ordering_with_a_frozen_clock(db: Database) -> None:
    store = SessionStore(db, clock=lambda: 1000.0)
    ids = [store.create_session(str(i)).id for i in range(5)]
    assert [s.id for s in store.list_sessions()] == ids[::-1]
    store.save_message(ids[2], Message.user("x"))
    assert store.list_sessions()[0].id == ids[2]


def test_rename_update_delete(store: SessionStore) -> None:
    s = store.create_session("t", provider_id="p", model="m", workspace="/w")
    renamed = store.rename_session(s.id, "New title")
    assert renamed.title == "New title"
    assert renamed.updated_at > s.updated_at
    assert store.rename_session(s.id, "   ").title == "New chat"

    updated = store.update_session(s.id, model="m2")
    assert (updated.provider_id, updated.model, updated.workspace) == ("p", "m2", "/w")
    cleared = store.update_session(s.id, provider_id=None, workspace=None, extra={"pinned": True})
    assert (cleared.provider_id, cleared.model, cleared.workspace) == (None, "m2", None)
    assert cleared.extra == {"pinned": True}
    assert store.get_session(s.id) == cleared

    store.save_message(s.id, Message.user("hello"))
    assert store.delete_session(s.id) is True  # to the trash
    assert store.delete_session(s.id) is False
    assert store.get_session(s.id) is None
    assert [x.id for x in store.list_deleted()] == [s.id]
    assert s.id not in [x.id for x in store.list_sessions(archived=None)]
    assert store.purge_deleted(older_than_s=3600) == 0  # too recent
    assert store.restore_session(s.id) is True  # undo
    assert store.restore_session(s.id) is False
    assert store.get_session(s.id).message_count == 1  # type: ignore[union-attr]
    store.delete_session(s.id)
    assert store.purge_deleted() == 1
    assert store.get_session(s.id, include_deleted=True) is None
    assert store.load_messages(s.id) == []
    count = store.db.query_one("SELECT COUNT(*) FROM messages")[0]  # type: ignore[index]
    assert count == 0  # ON DELETE CASCADE
    with pytest.raises(StorageError, match="does not exist"):
        store.rename_session(s.id, "x")
    with pytest.raises(StorageError, match="does not exist"):
        store.update_session(s.id, model="x")


def test_pin_archive_and_order(store: SessionStore) -> None:
    a = store.create_session("a")
    b = store.create_session("b")
    c = store.create_session("c")
    assert [x.title for x in store.list_sessions()] == ["c", "b", "a"]
    pinned = store.set_pinned(a.id, True)
    assert pinned.pinned and pinned.updated_at == a.updated_at  # not "recent" again
    assert [x.title for x in store.list_sessions()] == ["a", "c", "b"]
    archived = store.set_archived(c.id, True)
    assert archived.archived and archived.updated_at == c.updated_at
    assert [x.title for x in store.list_sessions()] == ["a", "b"]
    assert [x.title for x in store.list_sessions(archived=True)] == ["c"]
    assert [x.title for x in store.list_sessions(archived=None)] == ["a", "c", "b"]
    store.save_message(b.id, Message.user("news"))
    assert [x.title for x in store.list_sessions()] == ["a", "b"]
    store.set_pinned(a.id, False)
    store.set_archived(c.id, False)
    assert [x.title for x in store.list_sessions()] == ["b", "c", "a"]


def test_session_prompt_and_assistant_fields(store: SessionStore) -> None:
    s = store.create_session("t", system_prompt="Be brief.", assistant_id="asst_1")
    assert (s.system_prompt, s.assistant_id) == ("Be brief.", "asst_1")
    assert store.get_session(s.id) == s
    cleared = store.update_session(s.id, system_prompt=None, assistant_id=None)
    assert (cleared.system_prompt, cleared.assistant_id) == (None, None)
    assert store.update_session(s.id, system_prompt="").system_prompt == ""


def test_a_chat_in_the_trash_still_receives_its_last_save(store: SessionStore) -> None:
    s = store.create_session()
    answer = Message(role="assistant", status="streaming", parts=[TextPart(text="par")])
    store.save_message(s.id, answer)
    store.delete_session(s.id)
    answer.status = "stopped"
    store.save_message(s.id, answer)  # the stop arrives after the delete: kept for undo
    store.restore_session(s.id)
    assert store.load_messages(s.id)[0].status == "stopped"


def test_duplicate_copies_every_branch(store: SessionStore) -> None:
    s = store.create_session("Plan", model="m", workspace="/w", system_prompt="sys")
    question = Message.user("q")
    first = Message(role="assistant", parts=[TextPart(text="one")])
    store.save_message(s.id, question)
    store.save_message(s.id, first)
    store.start_branch(s.id, first.id)
    second = Message(role="assistant", parts=[TextPart(text="two")])
    store.save_message(s.id, second)
    store.set_pinned(s.id, True)
    copy = store.duplicate_session(s.id)
    assert copy.id != s.id and copy.title == "Plan (copy)" and not copy.pinned
    assert (copy.model, copy.workspace, copy.system_prompt) == ("m", "/w", "sys")
    assert copy.message_count == 3
    assert store.list_sessions()[1].id == copy.id  # after the pinned original
    branch = store.load_active_branch(copy.id)
    assert [m.text for m in branch.messages] == ["q", "two"]
    assert {m.id for m in branch.messages}.isdisjoint({question.id, second.id})
    assert branch.position(branch.messages[1].id).label == "2/2"  # type: ignore[union-attr]
    assert [m.text for m in store.load_all_messages(copy.id)] == ["q", "one", "two"]
    assert store.duplicate_session(s.id, title="Other").title == "Other"
    with pytest.raises(StorageError, match="does not exist"):
        store.duplicate_session("missing")


def test_message_parent_and_provider_data_round_trip(store: SessionStore) -> None:
    s = store.create_session()
    user = Message.user("hi")
    answer = Message(
        role="assistant",
        parts=[TextPart(text="yo")],
        provider_data={"response_id": "resp_1", "n": [1, None]},
    )
    store.save_message(s.id, user)
    store.save_message(s.id, answer)
    assert (user.parent_id, answer.parent_id) == (None, user.id)  # filled in on save
    loaded = store.load_messages(s.id)
    assert loaded == [user, answer]
    assert loaded[1].provider_data == {"response_id": "resp_1", "n": [1, None]}


def test_session_info_is_frozen(store: SessionStore) -> None:
    s = store.create_session()
    with pytest.raises(AttributeError):
        s.title = "x"  # type: ignore[misc]
    assert isinstance(s, SessionInfo)


def test_upsert_keeps_original_position(store: SessionStore) -> None:
    s = store.create_session()
    first = Message.user("one")
    reply = Message(role="assistant", status="streaming", parts=[TextPart(text="")])
    store.save_message(s.id, first)
    store.save_message(s.id, reply)
    third = Message.user("three")
    store.save_message(s.id, third)
    for chunk in ("Hel", "lo", "!"):
        reply.parts[0] = TextPart(text=reply.text + chunk)
        store.save_message(s.id, reply)
    reply.status = "complete"
    reply.finish_reason = "stop"
    store.save_message(s.id, reply)

    loaded = store.load_messages(s.id)
    assert [m.id for m in loaded] == [first.id, reply.id, third.id]
    assert loaded[1] == reply
    assert loaded[1].text == "Hello!"
    seqs = [r[0] for r in store.db.query("SELECT seq FROM messages ORDER BY seq")]
    assert seqs == [1, 2, 3]
    assert store.get_session(s.id).message_count == 3  # type: ignore[union-attr]


def test_every_part_type_round_trips(store: SessionStore) -> None:
    s = store.create_session()
    original = full_message()
    store.save_message(s.id, original)
    system = Message.system("sys")
    tool = Message(role="tool", parts=[ToolCallPart(id="c", name="n", arguments="not json {")])
    store.save_message(s.id, system)
    store.save_message(s.id, tool)
    loaded = store.load_messages(s.id)
    assert loaded[0] == original
    assert loaded[0].model_dump() == original.model_dump()
    assert loaded[0].created_at == original.created_at  # REAL keeps the exact float
    assert loaded[1:] == [system, tool]

    # ...and through a fresh connection.
    path = store.db.path
    store.db.close()
    with Database(path) as db2:
        assert SessionStore(db2).load_messages(s.id)[0] == original


def test_save_message_errors(store: SessionStore) -> None:
    with pytest.raises(StorageError, match="does not exist"):
        store.save_message("missing", Message.user("x"))
    a = store.create_session()
    b = store.create_session()
    m = Message.user("x")
    store.save_message(a.id, m)
    with pytest.raises(StorageError, match="another chat"):
        store.save_message(b.id, m)
    assert [x.id for x in store.load_messages(a.id)] == [m.id]
    assert store.load_messages(b.id) == []
    assert store.get_session(b.id).message_count == 0  # type: ignore[union-attr]


def test_delete_message_removes_what_follows_it(store: SessionStore) -> None:
    s = store.create_session()
    msgs = [Message.user(str(i)) for i in range(4)]
    for m in msgs:
        store.save_message(s.id, m)
    before = store.get_session(s.id)
    assert store.delete_message(msgs[2].id) is True
    assert store.delete_message(msgs[2].id) is False
    assert store.delete_message(msgs[3].id) is False  # went with its parent
    assert [m.id for m in store.load_messages(s.id)] == [msgs[0].id, msgs[1].id]
    assert store.get_session(s.id).updated_at > before.updated_at  # type: ignore[union-attr]
    # New messages go after the new end of the branch.
    last = Message.user("last")
    store.save_message(s.id, last)
    assert store.load_messages(s.id)[-1].id == last.id
    assert last.parent_id == msgs[1].id
    assert store.delete_message(msgs[0].id) is True
    assert store.load_messages(s.id) == []
    assert store.get_session(s.id).active_leaf_id is None  # type: ignore[union-attr]


def test_mark_interrupted(store: SessionStore) -> None:
    s = store.create_session()
    done = Message(role="assistant", parts=[TextPart(text="ok")])
    partial = Message(role="assistant", status="streaming", parts=[TextPart(text="par")])
    stopped = Message(role="assistant", status="stopped", parts=[TextPart(text="st")])
    for m in (done, partial, stopped):
        store.save_message(s.id, m)
    assert store.mark_interrupted() == 1
    assert [m.status for m in store.load_messages(s.id)] == ["complete", "interrupted", "stopped"]
    assert store.load_messages(s.id)[1].text == "par"
    assert store.mark_interrupted() == 0


def test_unreadable_rows_are_skipped(store: SessionStore, caplog: pytest.LogCaptureFixture) -> None:
    s = store.create_session()
    good = Message.user("fine")
    bad = Message.user("will be corrupted")
    store.save_message(s.id, bad)
    store.save_message(s.id, good)
    store.db.execute(
        'UPDATE messages SET parts = \'[{"type": "hologram"}]\' WHERE id = ?', (bad.id,)
    )
    with caplog.at_level("WARNING"):
        assert [m.id for m in store.load_messages(s.id)] == [good.id]
    assert "Skipping unreadable message" in caplog.text


async def test_usable_from_event_loop_and_worker_threads(store: SessionStore) -> None:
    s = store.create_session()
    streaming = Message(role="assistant", status="streaming", parts=[TextPart(text="")])

    async def stream() -> None:
        for i in range(50):
            streaming.parts[0] = TextPart(text=streaming.text + str(i % 10))
            store.save_message(s.id, streaming)
            await asyncio.sleep(0)

    async def users() -> None:
        for i in range(50):
            await asyncio.to_thread(store.save_message, s.id, Message.user(f"u{i}"))

    await asyncio.gather(stream(), users())
    loaded = store.load_messages(s.id)
    assert len(loaded) == 51
    assert loaded[0].id == streaming.id
    assert loaded[0].text == streaming.text


def test_has_sessions_agrees_with_the_list(store: SessionStore) -> None:
    """The window asks this on every message (the welcome shows while there is none)."""
    assert not store.has_sessions()
    a = store.create_session("a")
    assert store.has_sessions()
    store.set_archived(a.id, True)  # archived chats are not listed
    assert not store.has_sessions() and store.list_sessions() == []
    store.set_archived(a.id, False)
    store.delete_session(a.id)  # nor are those in the trash
    assert not store.has_sessions() and store.list_sessions() == []
    store.restore_session(a.id)
    assert store.has_sessions() and len(store.list_sessions()) == 1
