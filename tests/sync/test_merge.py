"""Two or three data folders syncing through each target (folder, WebDAV, S3 servers)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from desktop.core.settings import AppSettings
from desktop.sync.errors import WrongPassphraseError
from tests.sync.conftest import Device, Place

MakeDevice = Callable[[str], Device]


@pytest.mark.parametrize("order", ["ABA", "BAB"])
def test_offline_chats_end_as_the_union_in_any_order(devices: MakeDevice, order: str) -> None:
    a, b = devices("a"), devices("b")
    a.chat("Laptop plans", "pack the tent", "and the stove")
    a.chat("Laptop recipes", "bake bread")
    b.chat("Desktop notes", "renew passport")
    b.chat("Desktop todo", "call the bank", "pay rent")
    for name in order:
        (a if name == "A" else b).sync()
    for device in (a, b):
        titles = {s.title for s in device.sessions.list_sessions()}
        assert titles == {"Laptop plans", "Laptop recipes", "Desktop notes", "Desktop todo"}
        assert device.texts() == {
            "pack the tent", "and the stove", "bake bread", "renew passport", "call the bank",
            "pay rent",
        }
    chat = next(s for s in b.sessions.list_sessions() if s.title == "Laptop plans")
    assert [m.text for m in b.sessions.load_messages(chat.id)] == ["pack the tent", "and the stove"]


def test_both_answer_the_same_chat_apart_and_keep_both_as_siblings(devices: MakeDevice) -> None:
    a, b = devices("a"), devices("b")
    chat = a.chat("Question")
    question = a.say(chat, "what is a monad?")
    a.sync()
    b.sync()
    answer_a = a.say(chat, "a monoid in the category of endofunctors", role="assistant")
    answer_b = b.say(chat, "a way to chain computations", role="assistant")
    a.sync()
    b.sync()
    a.sync()
    for device in (a, b):
        position = device.sessions.siblings(answer_a.id)
        assert set(position.sibling_ids) == {answer_a.id, answer_b.id}
        branch = device.sessions.load_messages(chat)
        assert branch[0].id == question.id and branch[-1].id in {answer_a.id, answer_b.id}
    # Both devices show the same branch (the active leaf is one synced field).
    leaves = {d.sessions.get_session(chat).active_leaf_id for d in (a, b)}  # type: ignore[union-attr]
    assert len(leaves) == 1


def test_rename_on_one_and_pin_on_the_other_both_survive(devices: MakeDevice) -> None:
    a, b = devices("a"), devices("b")
    chat = a.chat("Old title", "hello")
    a.sync()
    b.sync()
    a.sessions.rename_session(chat, "New title")
    b.sessions.set_pinned(chat, True)
    b.sync()
    a.sync()
    b.sync()
    for device in (a, b):
        info = device.sessions.get_session(chat)
        assert info is not None and info.title == "New title" and info.pinned


def test_trash_deletions_and_assistants_travel_but_local_settings_do_not(
    devices: MakeDevice,
) -> None:
    a, b = devices("a"), devices("b")
    kept = a.chat("Kept", "one", "two")
    trashed = a.chat("Trashed", "bye")
    erased = a.chat("Erased", "gone")
    assistant = a.assistants.create("Translator", "Translate to French")
    a.settings.save(AppSettings(custom_instructions="be brief", workspace="/home/a/work"))
    a.sync()
    b.settings.save(AppSettings(workspace="/home/b/code"))
    b.sync()
    assert b.sessions.get_session(erased) is not None
    a.sessions.delete_session(trashed)
    a.sessions.delete_session(erased)
    a.sessions.purge_deleted(session_id=erased)
    last = a.sessions.load_messages(kept)[-1]
    a.sessions.delete_message(last.id)
    a.sync()
    b.sync()
    assert b.sessions.get_session(trashed) is None
    assert b.sessions.get_session(trashed, include_deleted=True) is not None
    assert b.sessions.get_session(erased, include_deleted=True) is None
    assert [m.text for m in b.sessions.load_messages(kept)] == ["one"]
    got = b.assistants.get(assistant.id)
    assert got is not None and got.system_prompt == "Translate to French"
    settings = b.settings.load()
    assert settings.custom_instructions == "be brief"
    assert settings.workspace == "/home/b/code"  # machine-specific: never synced


def test_a_deletion_wins_over_older_edits_only(devices: MakeDevice) -> None:
    a, b = devices("a"), devices("b")
    chat = a.chat("Shared", "hi")
    a.sync()
    b.sync()
    b.sessions.rename_session(chat, "Edited before the deletion")
    b.sync()
    a.sessions.delete_session(chat)
    a.sessions.purge_deleted(session_id=chat)
    a.sync()  # A deleted after seeing nothing of B's edit: its clock is later anyway
    b.sync()
    assert b.sessions.get_session(chat, include_deleted=True) is None
    revived = b.chat("Later chat", "x")
    b.sync()
    a.sync()
    assert a.sessions.get_session(revived) is not None


def test_a_new_device_gets_everything_and_the_target_holds_no_plaintext(
    devices: MakeDevice, place: Place
) -> None:
    a, b, c = devices("a"), devices("b"), devices("c")
    a.chat("Zanzibar itinerary", "book the ferry to Stonetown")
    b.chat("Quokka facts", "quokkas live on Rottnest")
    a.assistants.create("Pirate", "Speak like Captain Flint")
    a.sync()
    b.sync()
    c.sync()
    assert c.texts() == {"book the ferry to Stonetown", "quokkas live on Rottnest"}
    stored = place.stored()
    assert any("devices/" in name for name in stored)
    for secret in ("Zanzibar", "Stonetown", "Quokka", "Rottnest", "Captain Flint", "Pirate"):
        for name, data in stored.items():
            assert secret.encode() not in data, f"{secret!r} in plaintext in {name}"
            assert secret.encode("utf-16-le") not in data


def test_a_wrong_passphrase_is_refused_and_changes_nothing(devices: MakeDevice) -> None:
    a, b = devices("a"), devices("b")
    a.chat("Private", "secret text")
    a.sync()
    b.chat("Mine", "my text")
    before = b.user_data()
    with pytest.raises(WrongPassphraseError, match="passphrase is wrong"):
        b.sync(passphrase="not the passphrase")
    assert b.user_data() == before
    b.sync()
    assert "secret text" in b.texts()
