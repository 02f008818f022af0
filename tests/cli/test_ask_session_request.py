"""``assista ask --session ID`` sends a chat what the window sends it: the chat's own
prompt, its assistant, the custom instructions and its workspace, and the same tools.

The window starts turns through the chat service; this test starts one there, then
continues the same chat from the command line, and compares the two requests the
loopback server received.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from desktop.app import AppContext
from desktop.chat.chat_options import ChatOptions
from desktop.chat.profile import NewChat
from desktop.chat.service import ChatService
from desktop.storage.secrets import SecretStore
from tests.chat.conftest import add_provider
from tests.cli.test_ask_export import assista
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream


def _setup_chat(data: Path, server: FakeOpenAIServer, workspace: Path) -> str:
    ctx = AppContext.open(data, environ={}, log_to_stderr=False)
    ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
    try:
        add_provider(ctx, server)
        ctx.settings.update(custom_instructions="The user is a botanist.")
        assistant = ctx.assistants.create("Signer", "Sign every answer with X.",
                                          temperature=0.3)
        service = ChatService(ctx)
        chat = NewChat(assistant_id=assistant.id, workspace=str(workspace),
                       system_prompt="You answer in haiku. Sign with X.",
                       options=ChatOptions(max_tokens=321))

        async def first_turn() -> str:
            turn = service.start(chat, "first question")
            assert turn.task is not None
            await turn.task
            return turn.session_id

        return asyncio.run(first_turn())
    finally:
        ctx.close()


def _essentials(body: dict[str, Any]) -> dict[str, Any]:
    system = [m["content"] for m in body["messages"] if m["role"] == "system"]
    return {"model": body["model"], "system": system,
            "temperature": body.get("temperature"), "max_tokens": body.get("max_tokens"),
            "tools": sorted(t["function"]["name"] for t in body.get("tools", []))}


def test_the_cli_sends_a_chat_what_the_window_sends(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue(ScriptedResponse(chunks=text_stream("First answer.")))
        server.enqueue(ScriptedResponse(chunks=text_stream("Second answer.")))
        session_id = _setup_chat(tmp_path / "data", server, workspace)
        done = assista("ask", "--session", session_id, "second question",
                       data_dir=tmp_path / "data")
        assert done.returncode == 0, done.stderr
        from_window, from_cli = (r.json for r in server.chat_requests)
    assert _essentials(from_cli) == _essentials(from_window)
    system = _essentials(from_cli)["system"][0]
    assert "You answer in haiku. Sign with X." in system  # the chat's own prompt
    assert "The user is a botanist." in system  # custom instructions
    assert str(workspace) in system  # the workspace
    assert from_cli["temperature"] == 0.3  # the assistant's
    assert from_cli["max_tokens"] == 321  # the chat's own
    assert "read_file" in _essentials(from_cli)["tools"]  # workspace tools offered
    # and the CLI continued the conversation itself
    assert [m["content"] for m in from_cli["messages"] if m["role"] != "system"] == [
        "first question", "First answer.", "second question"]
