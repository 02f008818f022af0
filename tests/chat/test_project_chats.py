"""A project's instructions and files reach the chats in it, through the chat service
the window uses, and no other chat: the loopback server records every request."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from desktop.app import AppContext
from desktop.chat.profile import ChatRef, NewChat
from desktop.chat.service import ChatService
from tests.chat.conftest import add_provider
from tests.support.openai_server import FakeOpenAIServer

INSTRUCTIONS = "Answer as the head gardener of Kew."
NOTE = "The greenhouse code is 4417."


def _system(body: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")


def _ask(service: ChatService, chat: ChatRef, text: str) -> str:
    async def run() -> str:
        turn = service.start(chat, text)
        assert turn.task is not None
        await turn.task
        return turn.session_id

    return asyncio.run(run())


def test_a_projects_instructions_and_files_reach_its_chats_only(
        ctx: AppContext, server: FakeOpenAIServer, tmp_path: Path) -> None:
    add_provider(ctx, server)
    server.models = ["gpt-test", "gpt-garden"]
    notes = tmp_path / "greenhouse.md"
    notes.write_text(NOTE + "\n", encoding="utf-8")
    project = ctx.projects.create("Garden", instructions=INSTRUCTIONS, files=[notes],
                                  model="gpt-garden")
    service = ChatService(ctx)
    for answer in ("one", "two", "three", "four"):
        server.enqueue_text(answer)

    in_project = _ask(service, NewChat(project_id=project.id), "What is the code?")
    elsewhere = _ask(service, NewChat(), "What is the code?")
    ctx.projects.move_chat(elsewhere, project)  # dragged into the project
    _ask(service, elsewhere, "And now?")
    ctx.projects.delete(project)  # its chats move out, kept
    _ask(service, in_project, "Still there?")

    first, second, moved, after = (r.json for r in server.chat_requests)
    assert INSTRUCTIONS in _system(first) and NOTE in _system(first)
    assert "greenhouse.md" in _system(first)
    assert first["model"] == "gpt-garden"  # the project's default model
    assert ctx.sessions.get_session(in_project) is not None
    assert INSTRUCTIONS not in _system(second) and NOTE not in _system(second)
    assert second["model"] == "gpt-test"
    assert INSTRUCTIONS in _system(moved) and NOTE in _system(moved)
    assert INSTRUCTIONS not in _system(after) and NOTE not in _system(after)
    info = ctx.sessions.get_session(in_project)
    assert info is not None and info.project_id is None  # kept, out of the project


def test_instructions_come_after_the_assistants_prompt(
        ctx: AppContext, server: FakeOpenAIServer) -> None:
    add_provider(ctx, server)
    assistant = ctx.assistants.create("Poet", "You answer in verse.")
    project = ctx.projects.create("Garden", instructions=INSTRUCTIONS)
    server.enqueue_text("ok")
    _ask(ChatService(ctx), NewChat(assistant_id=assistant.id, project_id=project.id), "hi")
    system = _system(server.last_chat_body)
    assert system.index("You answer in verse.") < system.index(INSTRUCTIONS)


def test_a_large_file_is_searched_not_sent_whole(
        ctx: AppContext, server: FakeOpenAIServer, tmp_path: Path) -> None:
    add_provider(ctx, server)
    big = tmp_path / "manual.txt"
    big.write_text("Pruning roses in March. " * 2000 + "The secret word is marigold.\n",
                   encoding="utf-8")
    project = ctx.projects.create("Garden", files=[big])
    (file,) = ctx.projects.files(project)
    assert not file.in_context
    project = ctx.projects.resolve("Garden")
    assert project.files_base is not None
    server.enqueue_text("ok")
    _ask(ChatService(ctx), NewChat(project_id=project.id), "hi")
    body = server.last_chat_body
    assert "marigold" not in _system(body)
    assert project.files_base in _system(body)  # the prompt says where to search
    assert "search_knowledge" in [t["function"]["name"] for t in body.get("tools", [])]


def test_a_projects_workspace_tools_and_knowledge_reach_its_chats(
        ctx: AppContext, server: FakeOpenAIServer, tmp_path: Path) -> None:
    from desktop.knowledge.indexer import Indexer
    from desktop.knowledge.store import KnowledgeStore

    add_provider(ctx, server)
    work = tmp_path / "work"
    work.mkdir()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "roses.md").write_text("Prune roses in March.\n", encoding="utf-8")
    store = KnowledgeStore(ctx.db)
    Indexer(store, store.add("Roses", [docs])).run()
    project = ctx.projects.create("Garden", workspace=str(work), knowledge=["Roses"],
                                  tools=["read_file"])
    service = ChatService(ctx)
    server.enqueue_text("one")
    server.enqueue_text("two")
    _ask(service, NewChat(project_id=project.id), "hi")
    _ask(service, NewChat(), "hi")
    inside, outside = (r.json for r in server.chat_requests)

    def tools(body: dict[str, Any]) -> set[str]:
        return {t["function"]["name"] for t in body.get("tools", [])}

    assert str(work.resolve()) in _system(inside)  # the project's folder
    # its tools, its base (and memory's own tool: memory is on, in every chat that uses it)
    assert tools(inside) == {"read_file", "search_knowledge", "remember"}
    assert str(work.resolve()) not in _system(outside)
    assert "search_knowledge" not in tools(outside)


def test_knowledge_bases_a_project_names_but_this_machine_lacks_are_left_out(
        ctx: AppContext, server: FakeOpenAIServer) -> None:
    import dataclasses

    add_provider(ctx, server)
    project = ctx.projects.create("Garden")
    # as synced from another machine, where the base "Roses" exists
    ctx.projects.store.save(dataclasses.replace(project, knowledge=("Roses",)))
    server.enqueue_text("ok")
    _ask(ChatService(ctx), NewChat(project_id=project.id), "hi")
    tools = [t["function"]["name"] for t in server.last_chat_body.get("tools", [])]
    assert "search_knowledge" not in tools  # a search that could only fail


def test_a_removed_large_file_is_no_longer_searched(ctx: AppContext, tmp_path: Path) -> None:
    from desktop.knowledge.search import search_base
    from desktop.knowledge.store import KnowledgeStore

    big = tmp_path / "manual.txt"
    big.write_text("Pruning roses in March. " * 2000 + "The secret word is marigold.\n",
                   encoding="utf-8")
    project = ctx.projects.create("Garden", files=[big])
    project = ctx.projects.resolve("Garden")
    store = KnowledgeStore(ctx.db)
    assert project.files_base is not None
    assert search_base(store, store.get(project.files_base), "marigold", 3)
    (file,) = ctx.projects.files(project)
    ctx.projects.remove_file(project, file)
    assert ctx.projects.files(project) == []
    assert not search_base(store, store.get(project.files_base), "marigold", 3)
    assert ctx.projects.knowledge(project) == []  # nothing left to search
