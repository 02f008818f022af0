"""JSON (lossless) and Markdown (readable) exports."""

from __future__ import annotations

import json
import re

import pytest

from desktop.core.errors import StorageError
from desktop.core.messages import (
    Message,
    ReasoningPart,
    Source,
    SourcesPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop.storage.export import EXPORT_FORMAT, export_sessions, parse_json_export
from desktop.storage.sessions import SessionInfo, SessionStore

from .conftest import full_message


def _conversation(store: SessionStore) -> tuple[SessionInfo, list[Message]]:
    s = store.create_session("Project notes", provider_id="prov_x", model="gpt-4o-mini")
    messages = [
        Message.user("Read the README please"),
        full_message(),
        Message(
            role="tool",
            parts=[ToolResultPart(tool_call_id="call_1", name="read_file", content="ok")],
        ),
        Message(
            role="assistant",
            status="stopped",
            model="gpt-4o-mini",
            parts=[TextPart(text="Partial answ")],
        ),
        Message(
            role="assistant",
            status="error",
            error="provider (HTTP 500): upstream\nfailure",
            parts=[],
        ),
        Message(role="assistant", status="interrupted", parts=[TextPart(text="cut")]),
    ]
    for m in messages:
        store.save_message(s.id, m)
    return store.get_session(s.id), messages  # type: ignore[return-value]


def test_json_is_lossless(store: SessionStore) -> None:
    info, messages = _conversation(store)
    other = store.create_session("Other")
    store.save_message(other.id, Message.user("second session"))

    text = export_sessions(store, None, "json")
    doc = json.loads(text)
    assert doc["format"] == EXPORT_FORMAT == "assista-export"
    assert doc["version"] == 2
    assert isinstance(doc["exported_at"], float)
    assert [s["title"] for s in doc["sessions"]] == ["Other", "Project notes"]

    entry = doc["sessions"][1]
    assert {
        k: entry[k]
        for k in (
            "id",
            "title",
            "provider_id",
            "model",
            "workspace",
            "pinned",
            "archived",
            "system_prompt",
            "assistant_id",
            "active_leaf_id",
            "deleted_at",
        )
    } == {
        "id": info.id,
        "title": "Project notes",
        "provider_id": "prov_x",
        "model": "gpt-4o-mini",
        "workspace": None,
        "pinned": False,
        "archived": False,
        "system_prompt": None,
        "assistant_id": None,
        "active_leaf_id": messages[-1].id,
        "deleted_at": None,
    }
    assert entry["created_at"] == info.created_at
    loaded = [{k: v for k, v in m.items() if k != "selected_at"} for m in entry["messages"]]
    assert [Message.model_validate(m) for m in loaded] == messages
    assert all(isinstance(m["selected_at"], float) for m in entry["messages"])
    parsed = parse_json_export(text)
    assert parsed[1].messages == messages
    assert parsed[1].info == store.get_session(info.id)


def test_json_selected_sessions_in_given_order(store: SessionStore) -> None:
    a = store.create_session("A")
    b = store.create_session("B")
    doc = json.loads(export_sessions(store, [a.id, b.id, a.id], "json"))
    assert [s["title"] for s in doc["sessions"]] == ["A", "B"]
    assert doc["sessions"][0]["messages"] == []
    with pytest.raises(StorageError, match="does not exist"):
        export_sessions(store, ["missing"], "json")
    with pytest.raises(ValueError, match="unknown export format"):
        export_sessions(store, None, "html")  # type: ignore[arg-type]


def test_trash_is_not_exported_but_archived_chats_are(store: SessionStore) -> None:
    kept = store.create_session("Archived")
    store.set_archived(kept.id, True)
    gone = store.create_session("Trashed")
    store.delete_session(gone.id)
    doc = json.loads(export_sessions(store, None, "json"))
    assert [s["title"] for s in doc["sessions"]] == ["Archived"]
    assert doc["sessions"][0]["archived"] is True
    with pytest.raises(StorageError, match="does not exist"):
        export_sessions(store, [gone.id], "json")


def test_parse_rejects_other_files() -> None:
    with pytest.raises(StorageError):
        parse_json_export("{}")
    with pytest.raises(StorageError):
        parse_json_export("not json")
    with pytest.raises(StorageError, match="version"):
        parse_json_export('{"format": "assista-export", "version": 99}')
    with pytest.raises(StorageError, match="not readable"):
        parse_json_export(
            '{"format": "assista-export", "version": 2, "sessions": '
            '[{"id": "s", "title": "t", "created_at": 1, "updated_at": 1, '
            '"messages": [{"role": "wizard"}]}]}'
        )


def test_version_1_exports_read_as_chains() -> None:
    doc = {
        "format": "assista-export",
        "version": 1,
        "exported_at": 1.0,
        "sessions": [
            {
                "id": "ses_old",
                "title": "Old",
                "created_at": 1.0,
                "updated_at": 2.0,
                "provider_id": None,
                "model": None,
                "workspace": None,
                "extra": {},
                "messages": [
                    Message.user("a").model_dump(mode="json"),
                    Message(role="assistant", parts=[TextPart(text="b")]).model_dump(mode="json"),
                ],
            }
        ],
    }
    [record] = parse_json_export(json.dumps(doc))
    assert record.messages[1].parent_id == record.messages[0].id
    assert record.info.active_leaf_id == record.messages[1].id


def test_markdown_shows_every_branch(store: SessionStore) -> None:
    s = store.create_session("Branches", system_prompt="Answer in French.")
    question = Message.user("Capital of France?")
    store.save_message(s.id, question)
    first = Message(role="assistant", parts=[TextPart(text="Paris, first try")])
    store.save_message(s.id, first)
    store.start_branch(s.id, first.id)
    store.save_message(s.id, Message(role="assistant", parts=[TextPart(text="Paris again")]))
    store.start_branch(s.id, question.id)
    store.save_message(s.id, Message.user("Capital of Italy?"))
    md = export_sessions(store, [s.id], "markdown")
    assert "3 branches" in md
    assert "> **System prompt:** Answer in French." in md
    active = md.index("Capital of Italy?")
    assert md.index("## You · branch 2 of 2") < active
    assert "### Other branch (from the start)" in md
    assert "### Other branch (after “Capital of France?”)" in md
    for text in ("Paris, first try", "Paris again", "Capital of France?"):
        assert md.count(text) >= 1


def test_markdown(store: SessionStore) -> None:
    _conversation(store)
    second = store.create_session("Second")
    store.save_message(second.id, Message.user("hello again"))
    md = export_sessions(store, None, "markdown")

    assert md.startswith("# Second\n")
    assert "\n\n---\n\n# Project notes\n" in md
    assert md.count("\n---\n") == 1
    assert "Model: gpt-4o-mini" in md
    assert "6 messages" in md
    assert "## You\n\nRead the README please" in md
    assert "## Assistant (gpt-4o-mini)" in md
    assert "<details><summary>Reasoning</summary>\n\nLet me think… about `x`\n\n</details>" in md
    assert "_(hidden by the provider)_" in md
    assert "Hello 👋 — ünïcödé\nline two" in md
    assert '> Tool call: `read_file({"path": "README.md"})`' in md
    assert "> Result: read_file succeeded" in md
    assert "> # Readme" in md
    assert "x" * 2000 not in md  # preview is truncated
    assert "x" * 400 in md
    assert "> Result: write_file failed" in md
    assert "> permission denied" in md
    assert "_[Image: cat.jpg (image/jpeg)]_" in md
    assert "## Tool results" in md
    assert "Stopped by the user" in md
    assert "**Error:** provider (HTTP 500): upstream failure" in md
    assert "Interrupted: the app closed" in md
    assert "aGVsbG8=" not in md  # image data is not dumped
    assert "\ud800" not in md
    md.encode("utf-8")  # writable as UTF-8
    # No emoji of the app's own (the user's "👋" above is their text).
    own = md.replace("Hello 👋", "")
    assert not re.search("[\U0001F300-\U0001FAFF\u2600-\u27BF\u23E9-\u23FF]", own)


def test_markdown_tool_call_edge_cases(store: SessionStore) -> None:
    s = store.create_session("Edge")
    store.save_message(
        s.id,
        Message(
            role="assistant",
            parts=[
                ToolCallPart(id="1", name="list_directory"),
                ToolCallPart(id="2", name="run", arguments="not json `x`\n{"),
                ToolCallPart(id="3", name="big", arguments=json.dumps({"d": "y" * 500})),
                ReasoningPart(text=""),
                ToolResultPart(tool_call_id="3", name="big", content="```code```", status="denied"),
            ],
        ),
    )
    md = export_sessions(store, [s.id], "markdown")
    assert "> Tool call: `list_directory()`" in md
    assert "> Tool call: ``run(not json `x` {)``" in md
    assert "y" * 500 not in md and "…" in md
    assert "<details>" not in md  # empty reasoning is skipped
    assert "> Result: big was denied" in md
    assert "> ````\n> ```code```\n> ````" in md
    assert "## Assistant\n" in md  # no model known


def test_markdown_lists_the_sources_of_each_answer(store: SessionStore) -> None:
    s = store.create_session("Cited")
    store.save_message(s.id, Message.user("What is new?"))
    hits = {"status": "success", "result": {"query": "new", "results": [
        {"n": 1, "path": "/docs/notes [v2].md", "location": "lines 3-9", "page": None,
         "line_start": 3, "line_end": 9, "text": "the news"}]}}
    store.save_message(s.id, Message(role="assistant", parts=[
        ToolCallPart(id="k", name="search_knowledge", arguments='{"query": "new"}')]))
    store.save_message(s.id, Message(role="tool", parts=[
        ToolResultPart(tool_call_id="k", name="search_knowledge", content=json.dumps(hits))]))
    store.save_message(s.id, Message(role="assistant", parts=[
        TextPart(text="Two things [1][2]."),
        SourcesPart(sources=[Source(title="Example (news)", url="https://example.com/a b"),
                             Source(title="Example (news)", url="https://example.com/a b")])]))
    store.save_message(s.id, Message.user("Thanks"))
    store.save_message(s.id, Message(role="assistant", parts=[TextPart(text="You're welcome.")]))
    md = export_sessions(store, [s.id], "markdown")
    block = md[md.index("**Sources**"):]
    assert block.startswith("**Sources**\n\n1. notes \\[v2\\].md (lines 3-9): "
                            "`/docs/notes [v2].md`\n2. [Example (news)]"
                            "(https://example.com/a%20b)\n")
    assert md.count("**Sources**") == 1  # the second answer cites nothing
    assert md.index("Two things") < md.index("**Sources**") < md.index("Thanks")
