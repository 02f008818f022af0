"""Import: our JSON export gives back identical chats; ChatGPT exports keep their branches."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.errors import StorageError
from desktop.core.messages import (
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from desktop.storage.database import Database
from desktop.storage.export import export_sessions
from desktop.storage.importer import import_document, import_file
from desktop.storage.secrets import SecretStore
from desktop.storage.sessions import SessionStore
from desktop.storage.settings_store import SettingsStore

from .conftest import full_message

SAMPLE = Path(__file__).with_name("data") / "chatgpt_conversations.json"


@pytest.fixture
def other_store(tmp_path: Path) -> Iterator[SessionStore]:
    (tmp_path / "other").mkdir()
    db = Database(tmp_path / "other" / "assista.sqlite3")
    yield SessionStore(db)
    db.close()


def _rich_chats(store: SessionStore) -> None:
    s = store.create_session(
        "Rich",
        provider_id="prov_1",
        model="gpt-x",
        workspace="/ws",
        system_prompt="Be exact.",
        assistant_id="asst_9",
        extra={"color": "blue"},
    )
    question = Message.user("Read it")
    store.save_message(s.id, question)
    answer = full_message()
    answer.provider_data = {"response_id": "resp_123"}
    store.save_message(s.id, answer)
    store.start_branch(s.id, answer.id)
    regenerated = Message(
        role="assistant",
        parts=[TextPart(text="again")],
        usage=Usage(input_tokens=3, output_tokens=4, cost=0.5),
    )
    store.save_message(s.id, regenerated)
    store.switch_branch(s.id, answer.id)  # the older branch is the one shown
    store.set_pinned(s.id, True)
    archived = store.create_session("Archived")
    store.save_message(archived.id, Message.user("old stuff"))
    store.set_archived(archived.id, True)


def _without_time(text: str) -> dict[str, object]:
    doc = json.loads(text)
    doc.pop("exported_at")
    return doc  # type: ignore[no-any-return]


def test_json_export_then_import_gives_identical_chats(
    store: SessionStore, other_store: SessionStore
) -> None:
    _rich_chats(store)
    exported = export_sessions(store, None, "json")
    report = import_document(other_store, json.loads(exported))
    assert report.source == "assista" and len(report.imported) == 2 and report.messages == 4
    assert _without_time(export_sessions(other_store, None, "json")) == _without_time(exported)
    for info in store.list_sessions(archived=None):
        assert other_store.get_session(info.id) == info
        assert other_store.load_active_branch(info.id) == store.load_active_branch(info.id)
        assert other_store.load_all_messages(info.id) == store.load_all_messages(info.id)
    rich = store.list_sessions()[0]
    # Forks remember the same branch after the round trip.
    first_answer = store.load_messages(rich.id)[1]
    regenerated = store.siblings(first_answer.id).sibling_ids[1]
    store.switch_branch(rich.id, regenerated)
    other_store.switch_branch(rich.id, regenerated)
    assert other_store.load_messages(rich.id) == store.load_messages(rich.id)
    assert other_store.search("again")[0].message_id == regenerated


def test_importing_twice_adds_nothing_and_taken_ids_get_a_copy(
    store: SessionStore, other_store: SessionStore
) -> None:
    _rich_chats(store)
    original = store.list_sessions()[0].id
    doc = json.loads(export_sessions(store, None, "json"))
    again = import_document(store, doc)
    assert again.imported == [] and [r for _, r in again.skipped] == ["already imported"] * 2
    assert "Skipped 2" in again.summary()
    doc["sessions"][0]["id"] = "ses_renamed"  # same messages under another chat id
    copy = import_document(store, doc)
    assert len(copy.imported) == 1
    copied = store.load_all_messages(copy.imported[0])
    assert len(copied) == 3 and {m.id for m in copied}.isdisjoint(
        {m.id for m in store.load_all_messages(original)}
    )
    assert import_document(other_store, doc).imported[0] == "ses_renamed"


def test_keys_are_never_exported(store: SessionStore, paths: object) -> None:
    from desktop.core.settings import ProviderConfig
    from desktop.storage.paths import DataPaths

    assert isinstance(paths, DataPaths)
    secrets = SecretStore(paths)
    secrets.set("prov_1", "sk-very-secret-key-123456")
    SettingsStore(store.db).save_provider(
        ProviderConfig(id="prov_1", name="P", base_url="http://x", headers={"X-Org": "org-1"})
    )
    _rich_chats(store)
    for fmt in ("json", "markdown"):
        text = export_sessions(store, None, fmt)  # type: ignore[arg-type]
        assert "sk-very-secret" not in text and "org-1" not in text


def test_chatgpt_export_keeps_branches_tools_and_the_current_node(store: SessionStore) -> None:
    report = import_file(store, SAMPLE)
    assert report.source == "chatgpt"
    assert len(report.imported) == 2 and report.messages == 10
    assert report.summary() == "Imported 2 chats (10 messages) from the ChatGPT export."
    tokyo = store.get_session("ses_chatgpt_6f1c0a52-1111-4a2b-9c3d-000000000001")
    assert tokyo is not None
    assert (tokyo.title, tokyo.model, tokyo.archived) == ("Trip to Tokyo", "gpt-4o", False)
    assert (tokyo.created_at, tokyo.updated_at) == (1700000000.0, 1700000900.5)
    assert tokyo.extra["imported_from"] == "chatgpt"

    branch = store.load_active_branch(tokyo.id)
    user, thoughts, call, result, answer = branch.messages
    assert user.role == "user" and user.parent_id is None
    assert user.text.startswith("[Image not imported: file-service://file-AbC123]\nWhat should")
    assert branch.position(user.id).label == "2/2"  # type: ignore[union-attr]  # the edit
    assert isinstance(thoughts.parts[0], ReasoningPart)
    assert "Cherry blossoms" in thoughts.reasoning and thoughts.model == "o3"
    assert isinstance(call.parts[0], ToolCallPart) and call.parts[0].name == "python"
    assert json.loads(call.parts[0].arguments) == {"input": "print(2**10)"}
    assert isinstance(result.parts[0], ToolResultPart) and result.role == "tool"
    assert result.parts[0].tool_call_id == call.parts[0].id and result.parts[0].content == "1024"
    # current_node was the older of two regenerations: it stays the one shown.
    assert answer.text == "See Ueno Park. 2**10 = 1024."
    assert branch.position(answer.id).label == "1/2"  # type: ignore[union-attr]
    assert answer.created_at == 1700000104.0 and answer.finish_reason is None
    other = store.switch_branch(tokyo.id, branch.position(user.id).sibling_ids[0])  # type: ignore[union-attr]
    assert [m.text for m in other.messages] == [
        "What should I see in Tokyo?",
        "Visit 東京タワー and Asakusa.",
    ]
    assert other.messages[1].finish_reason == "stop"
    assert [h.session_id for h in store.search("asakusa")] == [tokyo.id]

    borscht = store.get_session("ses_chatgpt_6f1c0a52-2222-4a2b-9c3d-000000000002")
    assert borscht is not None and borscht.archived
    assert store.list_sessions(archived=True) == [borscht]
    assert borscht.title == "Рецепт борща"
    messages = store.load_messages(borscht.id)
    assert [m.status for m in messages] == ["complete", "interrupted"]
    assert store.search("свекла")[0].message_id == messages[1].id

    again = import_file(store, SAMPLE)
    assert again.imported == [] and len(again.skipped) == 2


def test_chatgpt_zip_and_unreadable_files(store: SessionStore, tmp_path: Path) -> None:
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("chat.html", "<html></html>")
        z.writestr("conversations.json", SAMPLE.read_text(encoding="utf-8"))
    assert len(import_file(store, archive).imported) == 2
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("other.json", "[]")
    with pytest.raises(StorageError, match=r"no conversations\.json"):
        import_file(store, empty)
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    with pytest.raises(StorageError, match="not a JSON file"):
        import_file(store, junk)
    junk.write_text('{"hello": 1}')
    with pytest.raises(StorageError, match="neither an Assista export nor a ChatGPT"):
        import_file(store, junk)
    with pytest.raises(StorageError, match="Cannot read"):
        import_file(store, tmp_path / "missing.json")


def test_a_broken_chat_is_skipped_and_the_rest_imported(store: SessionStore) -> None:
    doc = json.loads(SAMPLE.read_text(encoding="utf-8"))
    doc[1]["mapping"]["ccc"]["parent"] = "ccc"  # a node that is its own parent
    report = import_document(store, doc)
    assert len(report.imported) == 2  # the loop is cut: the node becomes a first message
    session = store.list_sessions(archived=True)[0]
    assert len(store.load_all_messages(session.id)) == 2
