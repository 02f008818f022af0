"""Assistants: named system prompts with defaults, on a real database."""

from __future__ import annotations

import dataclasses

import pytest

from desktop.core.errors import StorageError
from desktop.core.records import Assistant
from desktop.storage.assistants import AssistantStore
from desktop.storage.database import Database
from desktop.storage.sessions import SessionStore


def test_create_list_update_reorder_delete(db: Database) -> None:
    assistants = AssistantStore(db)
    sessions = SessionStore(db)
    coder = assistants.create(
        "  Code   reviewer ",
        "Review code strictly.",
        model="gpt-x",
        provider_id="prov_1",
        temperature=0.2,
        enabled_tools=("read_file", "search_files"),
    )
    writer = assistants.create("Writer", "Write clearly.", enabled_tools=())
    plain = assistants.save(Assistant(name="Plain"))
    assert coder.name == "Code reviewer"
    assert (coder.model, coder.provider_id, coder.temperature) == ("gpt-x", "prov_1", 0.2)
    assert coder.enabled_tools == ("read_file", "search_files")
    assert writer.enabled_tools == () and plain.enabled_tools is None
    assert [a.name for a in assistants.list_assistants()] == ["Code reviewer", "Writer", "Plain"]
    assert assistants.get(coder.id) == coder

    changed = assistants.save(dataclasses.replace(coder, system_prompt="Be kind.", model=None))
    assert (changed.system_prompt, changed.model, changed.position) == ("Be kind.", None, 0)
    assert changed.created_at == coder.created_at and changed.updated_at >= coder.updated_at
    copy = assistants.duplicate(writer.id)
    assert copy.name == "Writer (copy)" and copy.id != writer.id
    assistants.reorder([plain.id, copy.id])
    assert [a.name for a in assistants.list_assistants()] == [
        "Plain",
        "Writer (copy)",
        "Code reviewer",
        "Writer",
    ]

    chat = sessions.create_session("from assistant", assistant_id=coder.id)
    assert assistants.delete(coder.id) is True
    assert assistants.delete(coder.id) is False
    assert assistants.get(coder.id) is None
    assert sessions.get_session(chat.id).assistant_id is None  # type: ignore[union-attr]


def test_validation(db: Database) -> None:
    assistants = AssistantStore(db)
    with pytest.raises(StorageError, match="needs a name"):
        assistants.create("   ")
    with pytest.raises(StorageError, match="temperature"):
        assistants.create("Hot", temperature=3.0)
    with pytest.raises(StorageError, match="does not exist"):
        assistants.duplicate("asst_missing")
