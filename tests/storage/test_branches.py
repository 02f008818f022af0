"""Conversation trees: edit and regenerate add branches, nothing is overwritten."""

from __future__ import annotations

import pytest

from desktop.core.errors import StorageError
from desktop.core.messages import Message, TextPart
from desktop.storage.sessions import SessionStore


def _answer(text: str) -> Message:
    return Message(role="assistant", parts=[TextPart(text=text)])


def _texts(messages: list[Message]) -> list[str]:
    return [m.text for m in messages]


def test_regenerate_adds_a_sibling_and_keeps_the_first_answer(store: SessionStore) -> None:
    s = store.create_session()
    question, first = Message.user("q"), _answer("first")
    store.save_message(s.id, question)
    store.save_message(s.id, first)

    history = store.start_branch(s.id, first.id)
    assert _texts(history) == ["q"]
    second = _answer("second")
    store.save_message(s.id, second)  # no parent given: follows the branch point

    assert second.parent_id == question.id
    branch = store.load_active_branch(s.id)
    assert _texts(branch.messages) == ["q", "second"]
    position = branch.position(second.id)
    assert position is not None and position.label == "2/2"
    assert position.sibling_ids == (first.id, second.id)
    assert (position.previous_id, position.next_id) == (first.id, None)
    assert branch.position(question.id) is None
    assert _texts(store.load_all_messages(s.id)) == ["q", "first", "second"]
    assert store.siblings(first.id).label == "1/2"
    assert store.siblings(question.id).label == "1/1"


def test_edit_in_the_middle_and_at_the_start(store: SessionStore) -> None:
    s = store.create_session()
    u1, a1, u2, a2 = Message.user("u1"), _answer("a1"), Message.user("u2"), _answer("a2")
    for m in (u1, a1, u2, a2):
        store.save_message(s.id, m)

    assert _texts(store.start_branch(s.id, u2.id)) == ["u1", "a1"]
    u2b, a2b = Message.user("u2 edited"), _answer("a2b")
    store.save_message(s.id, u2b)
    store.save_message(s.id, a2b)
    branch = store.load_active_branch(s.id)
    assert _texts(branch.messages) == ["u1", "a1", "u2 edited", "a2b"]
    assert branch.position(u2b.id).label == "2/2"  # type: ignore[union-attr]

    assert store.start_branch(s.id, u1.id) == []  # editing the first message
    u1b = Message.user("u1 edited")
    store.save_message(s.id, u1b)
    assert u1b.parent_id is None
    branch = store.load_active_branch(s.id)
    assert _texts(branch.messages) == ["u1 edited"]
    assert branch.position(u1b.id).label == "2/2"  # type: ignore[union-attr]
    assert len(store.load_all_messages(s.id)) == 7  # nothing was lost


def test_switching_follows_the_branch_each_fork_remembers(store: SessionStore) -> None:
    s = store.create_session()
    q, a1 = Message.user("q"), _answer("a1")
    store.save_message(s.id, q)
    store.save_message(s.id, a1)
    follow, r1 = Message.user("follow-up"), _answer("r1")
    store.save_message(s.id, follow)
    store.save_message(s.id, r1)
    store.start_branch(s.id, r1.id)
    r2 = _answer("r2")
    store.save_message(s.id, r2)
    assert _texts(store.step_branch(s.id, r2.id, -1).messages) == ["q", "a1", "follow-up", "r1"]

    store.start_branch(s.id, a1.id)
    a2 = _answer("a2")
    store.save_message(s.id, a2)
    assert _texts(store.load_messages(s.id)) == ["q", "a2"]

    back = store.switch_branch(s.id, a1.id)
    assert _texts(back.messages) == ["q", "a1", "follow-up", "r1"]  # r1, not the newer r2
    assert back.position(r1.id).label == "1/2"  # type: ignore[union-attr]
    assert _texts(store.step_branch(s.id, a1.id, +5).messages) == ["q", "a2"]  # clamped
    assert _texts(store.step_branch(s.id, a2.id, -5).messages)[-1] == "r1"
    # A message deep in an inactive branch (e.g. a search hit) can be opened directly.
    store.switch_branch(s.id, a2.id)
    assert _texts(store.switch_branch(s.id, r2.id).messages) == ["q", "a1", "follow-up", "r2"]
    with pytest.raises(StorageError, match="not in chat"):
        store.switch_branch(s.id, "msg_missing")


def test_add_message_with_an_explicit_parent(store: SessionStore) -> None:
    s = store.create_session()
    other = store.create_session()
    root = Message.user("root")
    store.add_message(s.id, root, None)
    reply = _answer("reply")
    store.add_message(s.id, reply, root.id)
    alt = Message.user("alternative start")
    store.add_message(s.id, alt, None)
    assert _texts(store.load_messages(s.id)) == ["alternative start"]
    assert store.siblings(alt.id).label == "2/2"
    with pytest.raises(StorageError, match="already exists"):
        store.add_message(s.id, reply, root.id)
    with pytest.raises(StorageError, match="parent"):
        store.add_message(other.id, Message.user("x"), root.id)
    with pytest.raises(StorageError, match="parent"):
        store.save_message(s.id, Message(role="user", parent_id="msg_nowhere"))


def test_an_existing_message_never_changes_parent(store: SessionStore) -> None:
    s = store.create_session()
    a, b = Message.user("a"), _answer("b")
    store.save_message(s.id, a)
    store.save_message(s.id, b)
    moved = b.model_copy(update={"parent_id": None, "parts": [TextPart(text="b2")]})
    store.save_message(s.id, moved)
    assert moved.parent_id == a.id
    assert _texts(store.load_messages(s.id)) == ["a", "b2"]


def test_a_branch_started_but_never_saved_is_restored_at_startup(store: SessionStore) -> None:
    s = store.create_session()
    q, a = Message.user("q"), _answer("a")
    store.save_message(s.id, q)
    store.save_message(s.id, a)
    store.start_branch(s.id, a.id)  # regenerate... then the app is killed
    assert _texts(store.load_messages(s.id)) == ["q"]
    store.mark_interrupted()
    assert _texts(store.load_messages(s.id)) == ["q", "a"]
    store.start_branch(s.id, q.id)  # editing the first message... killed too
    assert store.load_messages(s.id) == []
    store.mark_interrupted()
    assert _texts(store.load_messages(s.id)) == ["q", "a"]
