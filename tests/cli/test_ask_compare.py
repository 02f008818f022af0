"""``assista ask --compare``: one question to two models (real processes, two loopback
servers: one given by --base-url, one a configured provider named PROVIDER:MODEL)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.app import AppContext
from desktop.core.settings import ProviderConfig
from desktop.storage.secrets import SecretStore
from tests.cli.test_ask_export import assista
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream

KEY = {"OPENAI_API_KEY": "sk-cli-compare-key-0123456789"}


@pytest.fixture
def servers() -> Iterator[tuple[FakeOpenAIServer, FakeOpenAIServer]]:
    with FakeOpenAIServer(models=["model-a"]) as a, FakeOpenAIServer(models=["model-b"]) as b:
        yield a, b


def configure_other(data: Path, server: FakeOpenAIServer) -> None:
    ctx = AppContext.open(data, environ={}, log_to_stderr=False)
    ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
    try:
        config = ProviderConfig(name="Other", preset="custom", base_url=server.base_url,
                                model="model-b")
        ctx.settings_store.save_provider(config)
        ctx.secrets.set(config.id, "sk-other-key-123456")
    finally:
        ctx.close()


def stored(data: Path) -> tuple[list[str], list[tuple[str | None, str, str]]]:
    """The active branch's texts, and (model, status, text) of the question's answers."""
    ctx = AppContext.open(data, environ={}, log_to_stderr=False)
    try:
        (session,) = ctx.sessions.list_sessions()
        messages = ctx.sessions.load_all_messages(session.id)
        (question,) = [m for m in messages if m.role == "user"]
        answers = [(m.model, m.status, m.text or m.error or "") for m in messages
                   if m.parent_id == question.id]
        return [m.text for m in ctx.sessions.load_messages(session.id)], answers
    finally:
        ctx.close()


def test_two_models_stream_under_headers_and_are_saved_as_siblings(
        servers: tuple[FakeOpenAIServer, FakeOpenAIServer], tmp_path: Path) -> None:
    a, b = servers
    configure_other(tmp_path, b)
    a.enqueue(ScriptedResponse(chunks=text_stream("Answer from A.", chunk_size=3)))
    b.enqueue(ScriptedResponse(chunks=text_stream("Answer from B.", chunk_size=3)))
    done = assista("ask", "--base-url", a.base_url, "--compare", "model-a,Other:model-b",
                   "Which one?", data_dir=tmp_path, env=KEY)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("== model-a ==\nAnswer from A.\n\n"
                           "== Other:model-b ==\nAnswer from B.\n")
    assert a.last_chat_body["model"] == "model-a"
    assert b.last_chat_body["model"] == "model-b"
    assert b.chat_requests[0].headers["authorization"] == "Bearer sk-other-key-123456"
    for server in servers:
        assert server.last_chat_body["messages"][-1] == {"role": "user",
                                                         "content": "Which one?"}
    active, answers = stored(tmp_path)
    assert answers == [("model-a", "complete", "Answer from A."),
                       ("model-b", "complete", "Answer from B.")]
    assert active == ["Which one?", "Answer from A."]  # the first one is active


def test_json_events_are_tagged_with_their_model(
        servers: tuple[FakeOpenAIServer, FakeOpenAIServer], tmp_path: Path) -> None:
    a, b = servers
    configure_other(tmp_path, b)
    a.enqueue(ScriptedResponse(chunks=text_stream("AAA", chunk_size=1)))
    b.enqueue(ScriptedResponse(chunks=text_stream("BBB", chunk_size=1)))
    done = assista("ask", "--base-url", a.base_url, "--compare", "model-a,Other:model-b",
                   "--json", "Hi", data_dir=tmp_path, env=KEY)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert all(e["model"] in ("model-a", "Other:model-b") for e in events)
    for model, column, text in (("model-a", 0, "AAA"), ("Other:model-b", 1, "BBB")):
        mine = [e for e in events if e["model"] == model]
        assert {e["column"] for e in mine} == {column}
        assert "".join(e["text"] for e in mine if e["type"] == "text_delta") == text
        final = mine[-1]
        assert final["type"] == "messages" and final["status"] == "complete"
        assert [m["role"] for m in final["messages"]] == ["user", "assistant"]
        assert final["messages"][1]["parent_id"] == final["messages"][0]["id"]


def test_one_failing_model_is_named_and_saved_failed_the_other_is_kept(
        servers: tuple[FakeOpenAIServer, FakeOpenAIServer], tmp_path: Path) -> None:
    a, b = servers
    configure_other(tmp_path, b)
    a.enqueue(ScriptedResponse(chunks=text_stream("Still here.")))
    b.enqueue_error(400, "model-b is not allowed")
    done = assista("ask", "--base-url", a.base_url, "--compare", "model-a,Other:model-b",
                   "Hi", data_dir=tmp_path, env=KEY)
    assert done.returncode == 0, done.stderr
    assert "Other:model-b failed" in done.stderr and "not allowed" in done.stderr
    assert "1 of 2 models failed: Other:model-b" in done.stderr
    assert done.stdout.startswith("== model-a ==\nStill here.\n")
    _active, answers = stored(tmp_path)
    assert answers[0] == ("model-a", "complete", "Still here.")
    assert answers[1][:2] == ("model-b", "error") and "not allowed" in answers[1][2]


def test_every_model_failing_exits_non_zero_naming_them(
        servers: tuple[FakeOpenAIServer, FakeOpenAIServer], tmp_path: Path) -> None:
    a, b = servers
    configure_other(tmp_path, b)
    a.enqueue_error(400, "no A")
    b.enqueue_error(400, "no B")
    done = assista("ask", "--base-url", a.base_url, "--compare", "model-a,Other:model-b",
                   "Hi", data_dir=tmp_path, env=KEY)
    assert done.returncode == 1
    assert "every model failed: model-a, Other:model-b" in done.stderr


def test_bad_lists_are_one_clear_line(tmp_path: Path) -> None:
    done = assista("ask", "--base-url", "http://127.0.0.1:9/v1", "--compare", "only-one",
                   "Hi", data_dir=tmp_path, env=KEY)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "assista: error: --compare takes 2 to 4 models, separated by commas (1 given)"]


def test_no_save_compares_without_storing_anything(
        servers: tuple[FakeOpenAIServer, FakeOpenAIServer], tmp_path: Path) -> None:
    a, b = servers
    configure_other(tmp_path, b)
    a.enqueue(ScriptedResponse(chunks=text_stream("A.")))
    b.enqueue(ScriptedResponse(chunks=text_stream("B.")))
    done = assista("ask", "--base-url", a.base_url, "--compare", "model-a,Other:model-b",
                   "--no-save", "Hi", data_dir=tmp_path, env=KEY)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "== model-a ==\nA.\n\n== Other:model-b ==\nB.\n"
    ctx = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    try:
        assert ctx.sessions.list_sessions() == []
    finally:
        ctx.close()


async def test_a_terminal_approval_says_which_model_asks(
        servers: tuple[FakeOpenAIServer, FakeOpenAIServer], tmp_path: Path) -> None:
    """In-process: the terminal's approver sees one question at a time, each labelled."""
    import io

    from desktop.chat.compare_run import CompareTarget
    from desktop.chat.profile import NewChat
    from desktop.chat.service import ChatService
    from desktop.cli.ask_compare import labelled
    from desktop.tools.approval import ApprovalDecision, ApprovalRequest
    from tests.support.openai_server import tool_call_stream

    ctx = AppContext.open(tmp_path / "data", environ={}, log_to_stderr=False)
    ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
    try:
        targets = []
        for letter, server in zip("ab", servers, strict=True):
            config = ProviderConfig(name=letter.upper(), preset="custom",
                                    base_url=server.base_url, model=f"model-{letter}")
            ctx.settings_store.save_provider(config)
            ctx.secrets.set(config.id, "sk-test-key-0123456")
            targets.append(CompareTarget(config, f"model-{letter}"))
            server.enqueue(ScriptedResponse(chunks=tool_call_stream(
                [("fetch_url", '{"url": "https://example.com/"}')])))
            server.enqueue(ScriptedResponse(chunks=text_stream("Without it.")))
        err = io.StringIO()
        asked: list[str] = []

        async def terminal(request: ApprovalRequest) -> ApprovalDecision:
            asked.append(err.getvalue().strip().splitlines()[-1])
            return ApprovalDecision.deny("no")

        run = ChatService(ctx).compare.start(NewChat(), "Fetch it", targets,
                                             approver=labelled(terminal, err))
        await run.wait()
        assert sorted(asked) == ["[model-a] asks to run fetch_url:",
                                 "[model-b] asks to run fetch_url:"]
        assert [c.status for c in run.columns] == ["complete", "complete"]
    finally:
        ctx.close()
