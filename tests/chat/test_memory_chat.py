"""Memory in the chat service (the window's and the CLI's one route), against a
loopback server that records the requests: scopes, pause, relevance when there are
many, temporary chats, and where a remembered fact goes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from desktop.app import AppContext
from desktop.chat.approvals import PendingApproval
from desktop.chat.profile import NewChat
from desktop.chat.service import ChatService
from desktop.knowledge.store import EmbeddingConfig, KnowledgeStore
from desktop.storage.memories import ALL_WHILE_AT_MOST, RELEVANT_COUNT, MemoryStore
from desktop.tools.approval import ApprovalDecision
from tests.knowledge import embedding_server
from tests.knowledge.embedding_server import bag_of_words as _bag
from tests.support.openai_server import FakeOpenAIServer


def system_of(body: dict[str, Any]) -> str:
    first = body["messages"][0]
    return str(first["content"]) if first["role"] == "system" else ""


def tools_of(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


async def ask(service: ChatService, server: FakeOpenAIServer, chat: NewChat | str,
              text: str = "hello") -> dict[str, Any]:
    server.enqueue_text("ok")
    service.start(chat, text)
    await service.wait_idle()
    body: dict[str, Any] = server.chat_requests[-1].json
    return body


async def test_a_projects_memories_reach_its_chats_and_no_others(
        service: ChatService, server: FakeOpenAIServer) -> None:
    store = service.memories
    store.add("Lives in Lyon")
    store.add("The garden has three apple trees", "project-garden")
    store.add("The thesis is about moss", "project-thesis")
    garden = system_of(await ask(service, server, NewChat(project_id="project-garden")))
    assert "<memory>Lives in Lyon</memory>" in garden
    assert "<memory>The garden has three apple trees</memory>" in garden
    assert "moss" not in garden
    plain = system_of(await ask(service, server, NewChat()))
    assert "<memory>Lives in Lyon</memory>" in plain
    assert "apple" not in plain and "moss" not in plain


async def test_remembered_in_a_project_chat_stays_in_the_project(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    ctx.settings.update(tool_policies={"remember": "allow"})
    server.enqueue_tool_calls([("remember", json.dumps({"fact": "Uses no pesticides"}))])
    server.enqueue_text("Noted.")
    turn = service.start(NewChat(project_id="project-garden"), "Remember: no pesticides")
    await service.wait_idle()
    [memory] = service.memories.all()
    assert (memory.text, memory.project_id) == ("Uses no pesticides", "project-garden")
    assert memory.source_session_id == turn.session_id
    assert memory.source_message_id == turn.base[-1].id
    assert "pesticides" not in system_of(await ask(service, server, NewChat()))
    assert "pesticides" in system_of(await ask(service, server,
                                               NewChat(project_id="project-garden")))


async def test_remember_asks_first_by_default(service: ChatService,
                                              server: FakeOpenAIServer) -> None:
    server.enqueue_tool_calls([("remember", json.dumps({"fact": "Likes tea"}))])
    server.enqueue_text("Fine.")
    asked: list[PendingApproval] = []
    service.approvals.on_request.append(asked.append)
    service.approvals.on_request.append(
        lambda p: p.resolve(ApprovalDecision.deny("not that")))
    service.start(NewChat(), "I like tea")
    await service.wait_idle()
    assert [p.request.tool for p in asked] == ["remember"]
    assert asked[0].request.preview.title == "Save a memory"
    assert json.loads(asked[0].request.preview.text) == {"fact": "Likes tea"}
    assert service.memories.all() == []


async def test_paused_memory_is_neither_read_nor_written(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    service.memories.add("Lives in Lyon")
    ctx.settings.update(memory_enabled=False)
    body = await ask(service, server, NewChat())
    assert "Lyon" not in system_of(body)
    assert "remember" not in tools_of(body)
    ctx.settings.update(memory_enabled=True)
    body = await ask(service, server, NewChat())
    assert "Lyon" in system_of(body) and "remember" in tools_of(body)


async def test_many_memories_send_the_most_relevant(
        service: ChatService, server: FakeOpenAIServer) -> None:
    store = service.memories
    for n in range(ALL_WHILE_AT_MOST + 10):
        store.add(f"Filler fact number {n}")
    store.add("Allergic to hazelnuts")
    for n in range(5):
        store.add(f"Another filler {n}")
    system = system_of(await ask(service, server, NewChat(), "Can I eat this hazelnuts cake?"))
    assert "<memory>Allergic to hazelnuts</memory>" in system
    assert system.count("<memory>") == RELEVANT_COUNT


async def test_a_temporary_chat_reads_writes_and_keeps_nothing(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    service.memories.add("Lives in Lyon")
    chat = NewChat(temporary=True)
    first = await ask(service, server, chat, "first question")
    assert "Lyon" not in system_of(first) and "remember" not in tools_of(first)
    second = await ask(service, server, chat, "second question")
    sent = [m["content"] for m in second["messages"] if m["role"] != "system"]
    assert sent == ["first question", "ok", "second question"]  # it remembers its turns
    assert ctx.sessions.list_sessions(archived=None) == []
    assert MemoryStore(ctx.db).count() == 1


async def test_the_request_inspector_records_the_memories_as_sent(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    from desktop.storage.inspector_store import InspectorStore

    service.memories.add("Lives in Lyon")
    server.enqueue_text("ok")
    turn = service.start(NewChat(), "hello")
    await service.wait_idle()
    ctx.inspector.flush()
    store = InspectorStore(ctx.inspector.path, read_only=True)
    try:
        [record] = store.for_session(turn.session_id)
    finally:
        store.close()
    assert b"<memory>Lives in Lyon</memory>" in record.request_body


def _concepts(text: str) -> list[float]:
    """The loopback embedding service's vectors, with a few words of one meaning put
    on one dimension (so that only vectors, not full text, tell they are related)."""
    same = {"hazelnuts": "nut", "praline": "nut"}
    return _bag(" ".join(same.get(w, w) for w in re.findall(r"\w+", text.lower())))


async def test_many_memories_are_ranked_by_vectors_where_the_knowledge_has_a_model(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding_server, "bag_of_words", _concepts)
    store = service.memories
    store.add("Allergic to hazelnuts")  # the oldest: the newest fill a full-text miss
    for n in range(ALL_WHILE_AT_MOST + 15):
        store.add(f"Filler fact number {n}")
    (tmp_path / "notes.txt").write_text("notes", encoding="utf-8")
    with embedding_server.EmbeddingServer() as embedder:
        KnowledgeStore(ctx.db).add("notes", [tmp_path / "notes.txt"], EmbeddingConfig(
            kind="openai", base_url=embedder.base_url, model="concepts"))
        plain = system_of(await ask(service, server, NewChat(), "Is praline safe for me?"))
        assert "hazelnuts" not in plain  # full text alone: no word in common
        chat = NewChat(knowledge=["notes"])
        system = system_of(await ask(service, server, chat, "Is praline safe for me?"))
        assert "<memory>Allergic to hazelnuts</memory>" in system
        assert system.count("<memory>") == RELEVANT_COUNT
        assert len(embedder.requests[0]["input"]) == ALL_WHILE_AT_MOST + 16  # once each
        await ask(service, server, NewChat(knowledge=["notes"]), "Any praline?")
        assert embedder.requests[-1]["input"] == ["Any praline?"]  # only the question
        model = f"openai|{embedder.base_url}|concepts"
        nuts = next(m for m in store.all() if "hazelnuts" in m.text)
        assert nuts.id in store.vectors(model)
        store.edit(nuts.id, "Allergic to hazelnuts and almonds")
        assert nuts.id not in store.vectors(model)  # made again from the new text


async def test_memories_are_not_embedded_by_a_remote_service(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext,
        tmp_path: Path) -> None:
    for n in range(ALL_WHILE_AT_MOST + 1):
        service.memories.add(f"Fact {n}")
    (tmp_path / "notes.txt").write_text("notes", encoding="utf-8")
    KnowledgeStore(ctx.db).add("notes", [tmp_path / "notes.txt"], EmbeddingConfig(
        kind="openai", base_url="https://embeddings.example.com/v1", model="m"))
    plan = service.plan(NewChat(knowledge=["notes"]), question="hello")
    assert plan.recall is None and plan.memories  # full text only: nothing leaves


async def test_a_temporary_chat_cannot_compare_models(service: ChatService,
                                                      ctx: AppContext) -> None:
    from desktop.chat.compare_run import CompareTarget
    from desktop.core.errors import ConfigError

    config = ctx.providers.all()[0]
    targets = [CompareTarget(config, "gpt-test"), CompareTarget(config, "gpt-other")]
    with pytest.raises(ConfigError, match="not available in a temporary chat"):
        service.compare.start(NewChat(temporary=True), "which?", targets)
    assert ctx.sessions.list_sessions(archived=None) == []
