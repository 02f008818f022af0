"""Compare: one question to several models (each on its own loopback server) at once,
each answer a sibling branch; a model that fails mid-stream leaves the others alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.app import AppContext
from desktop.chat.compare_run import CompareTarget
from desktop.chat.events import ChatEvent, TurnEnded
from desktop.chat.profile import NewChat
from desktop.chat.service import ChatService
from desktop.core.errors import ConfigError
from desktop.core.events import TextDelta
from desktop.core.settings import ProviderConfig
from desktop.storage.secrets import SecretStore
from tests.chat.test_chat_service import until
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream

LONG = "alpha " * 40


@pytest.fixture
def servers() -> Iterator[list[FakeOpenAIServer]]:
    with FakeOpenAIServer(models=["model-a"]) as a, FakeOpenAIServer(models=["model-b"]) as b, \
            FakeOpenAIServer(models=["model-c"]) as c:
        yield [a, b, c]


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[AppContext]:
    context = AppContext.open(tmp_path / "data", environ={}, log_to_stderr=False)
    context.secrets = SecretStore(context.paths.secrets_path, force_file=True)
    yield context
    context.close()


def providers(ctx: AppContext, servers: list[FakeOpenAIServer]) -> list[CompareTarget]:
    targets = []
    for letter, server in zip("abc", servers, strict=False):
        config = ProviderConfig(name=f"Server {letter.upper()}", preset="custom",
                                base_url=server.base_url, model=f"model-{letter}")
        ctx.settings_store.save_provider(config)
        ctx.secrets.set(config.id, f"sk-{letter}-key-123456")
        targets.append(CompareTarget(config, f"model-{letter}"))
    ctx.settings.update(active_provider_id=targets[0].config.id)
    return targets


def held(text: str, after: int = 3) -> ScriptedResponse:
    return ScriptedResponse(chunks=text_stream(text, chunk_size=5), hold_after=after)


async def test_three_models_answer_at_once_one_failing_mid_stream_leaves_the_others(
        ctx: AppContext, servers: list[FakeOpenAIServer]) -> None:
    targets = providers(ctx, servers)
    service = ChatService(ctx)
    first, second = held(LONG), held("Second model's answer.", after=2)
    servers[0].enqueue(first)
    servers[1].enqueue(second)
    # The third streams a little, then its connection drops.
    servers[2].enqueue(ScriptedResponse(chunks=text_stream("Half an ans", chunk_size=4)[:3],
                                        cut=True))
    run = service.compare.start(NewChat(), "Which is best?", targets)
    seen: list[list[ChatEvent]] = [[], [], []]
    for column in run.columns:
        column.observe(seen[column.index].append)
    await until(lambda: first.holding.is_set() and second.holding.is_set())
    await until(lambda: run.columns[2].ended)
    # the failure touched nothing else: both others still stream
    assert [c.status for c in run.columns] == ["running", "running", "failed"]
    assert service.state(run.session_id) == "answering"
    first.release()
    second.release()
    await run.wait()

    assert [c.status for c in run.columns] == ["complete", "complete", "failed"]
    texts = ["".join(e.text for e in events if isinstance(e, TextDelta)) for events in seen]
    assert texts[:2] == [LONG, "Second model's answer."]
    assert all(isinstance(events[-1], TurnEnded) for events in seen)
    # every request carried the question, each to its own model
    for server, target in zip(servers, targets, strict=True):
        body = server.chat_requests[0].json
        assert body["model"] == target.model
        assert body["messages"][-1]["content"] == "Which is best?"

    stored = ctx.sessions.load_all_messages(run.session_id)
    question = next(m for m in stored if m.role == "user")
    answers = [m for m in stored if m.parent_id == question.id]
    assert [a.model for a in answers] == ["model-a", "model-b", "model-c"]
    assert [a.status for a in answers] == ["complete", "complete", "error"]
    assert answers[0].text == LONG and answers[1].text == "Second model's answer."
    assert answers[2].error and answers[2].text.startswith("Half")
    # the first model's answer is the one shown; the others are ‹ n/m › siblings
    branch = ctx.sessions.load_active_branch(run.session_id)
    assert [m.id for m in branch.messages] == [question.id, answers[0].id]
    position = branch.position(answers[0].id)
    assert position is not None and position.label == "1/3"
    assert service.state(run.session_id) != "answering"


async def test_keep_makes_that_answer_the_active_branch(
        ctx: AppContext, servers: list[FakeOpenAIServer]) -> None:
    targets = providers(ctx, servers[:2])
    service = ChatService(ctx)
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("From A.")))
    servers[1].enqueue(ScriptedResponse(chunks=text_stream("From B.")))
    run = service.compare.start(NewChat(), "Hello", targets)
    await run.wait()
    branch = service.compare.keep(run, 1)
    assert branch is not None
    assert [m.text for m in branch.messages] == ["Hello", "From B."]
    assert [m.text for m in ctx.sessions.load_messages(run.session_id)] == ["Hello", "From B."]
    # the next question follows the kept answer, and goes to its model
    config = service.chats.provider(run.session_id)
    assert config is not None and config.id == targets[1].config.id
    assert service.chats.model(run.session_id) == targets[1].model
    servers[1].enqueue(ScriptedResponse(chunks=text_stream("Next.")))
    turn = service.start(run.session_id, "And then?")
    assert turn.task is not None
    await turn.task
    assert [m.text for m in ctx.sessions.load_messages(run.session_id)] == [
        "Hello", "From B.", "And then?", "Next."]
    assert servers[1].last_chat_body["model"] == targets[1].model


async def test_keep_while_others_stream_stops_them_and_is_applied_at_the_end(
        ctx: AppContext, servers: list[FakeOpenAIServer]) -> None:
    targets = providers(ctx, servers[:2])
    service = ChatService(ctx)
    slow = held(LONG)
    servers[0].enqueue(slow)
    servers[1].enqueue(ScriptedResponse(chunks=text_stream("Quick.")))
    run = service.compare.start(NewChat(), "Race", targets)
    await until(lambda: run.columns[1].ended and slow.holding.is_set())
    assert service.compare.keep(run, 1) is None  # applied when the run ends
    await run.wait()
    assert run.columns[0].status == "stopped"
    assert [m.text for m in ctx.sessions.load_messages(run.session_id)] == ["Race", "Quick."]
    stopped = [m for m in ctx.sessions.load_all_messages(run.session_id)
               if m.model == "model-a"]
    assert [m.status for m in stopped] == ["stopped"]


async def test_ask_other_models_adds_siblings_to_an_existing_answer(
        ctx: AppContext, servers: list[FakeOpenAIServer]) -> None:
    targets = providers(ctx, servers)
    service = ChatService(ctx)
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("First try.")))
    turn = service.start(NewChat(), "Question")
    assert turn.task is not None
    await turn.task
    question, answer = ctx.sessions.load_messages(turn.session_id)
    servers[1].enqueue(ScriptedResponse(chunks=text_stream("B's view.")))
    servers[2].enqueue(ScriptedResponse(chunks=text_stream("C's view.")))
    run = service.compare.ask_others(turn.session_id, answer.id, targets[1:])
    assert run.question.id == question.id
    await run.wait()
    children = [m for m in ctx.sessions.load_all_messages(turn.session_id)
                if m.parent_id == question.id]
    assert [m.text for m in children] == ["First try.", "B's view.", "C's view."]
    assert [m.text for m in run.earlier] == ["First try."]
    # nothing changes in the chat until another answer is kept
    assert [m.text for m in ctx.sessions.load_messages(turn.session_id)] == [
        "Question", "First try."]
    service.compare.keep(run, 1)
    assert ctx.sessions.load_messages(turn.session_id)[-1].text == "C's view."
    service.compare.keep(run, 2)  # the earlier answer, chosen again
    assert ctx.sessions.load_messages(turn.session_id)[-1].text == "First try."
    assert len([m for m in ctx.sessions.load_all_messages(turn.session_id)
                if m.role == "user"]) == 1  # the question was not asked twice
    # the question was sent without the earlier answer
    sent = servers[1].chat_requests[0].json["messages"]
    assert [m["role"] for m in sent if m["role"] != "system"] == ["user"]


async def test_a_model_that_cannot_start_is_saved_failed_and_the_others_run(
        ctx: AppContext, servers: list[FakeOpenAIServer]) -> None:
    targets = providers(ctx, servers[:2])
    service = ChatService(ctx)
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("Fine.")))
    broken = CompareTarget(targets[1].config.model_copy(update={"base_url": "not a url"}),
                           "model-b")
    run = service.compare.start(NewChat(), "Hi", [targets[0], broken])
    await run.wait()
    assert [c.status for c in run.columns] == ["complete", "failed"]
    answers = [m for m in ctx.sessions.load_all_messages(run.session_id)
               if m.role == "assistant"]
    assert [(m.model, m.status) for m in answers] == [("model-a", "complete"),
                                                      ("model-b", "error")]
    assert answers[1].error


async def test_compare_needs_two_to_four_models(
        ctx: AppContext, servers: list[FakeOpenAIServer]) -> None:
    targets = providers(ctx, servers[:1])
    service = ChatService(ctx)
    with pytest.raises(ConfigError, match="2 to 4"):
        service.compare.start(NewChat(), "Hi", targets)
    with pytest.raises(ConfigError, match="2 to 4"):
        service.compare.start(NewChat(), "Hi", targets * 5)


async def test_tools_and_approvals_are_per_column(
        ctx: AppContext, servers: list[FakeOpenAIServer]) -> None:
    from desktop.chat.approvals import PendingApproval
    from desktop.tools.approval import ApprovalDecision
    from tests.support.openai_server import tool_call_stream

    targets = providers(ctx, servers[:2])
    service = ChatService(ctx)
    for server, url in zip(servers[:2], ("https://example.com/a", "https://example.com/b"),
                           strict=True):
        server.enqueue(ScriptedResponse(chunks=tool_call_stream(
            [("fetch_url", f'{{"url": "{url}"}}')])))
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("I was not allowed to look.")))
    asked: list[PendingApproval] = []
    service.approvals.on_request.append(asked.append)
    run = service.compare.start(NewChat(), "Read both pages", targets)
    await until(lambda: len(asked) == 2)
    assert service.state(run.session_id) == "approval"
    by_column = {run.column_of(p).index: p for p in asked}  # type: ignore[union-attr]
    assert set(by_column) == {0, 1}
    assert by_column[0].chat_title.endswith("model-a")
    by_column[0].resolve(ApprovalDecision.deny("not now"))
    service.compare.stop_column(run, 1)  # its question goes away with it
    await run.wait()
    assert [c.status for c in run.columns] == ["complete", "stopped"]
    assert not service.approvals.pending

    stored = {m.id: m for m in ctx.sessions.load_all_messages(run.session_id)}

    def chain(first: str | None) -> list[str]:
        ids, current = [], first
        while current is not None:
            ids.append(current)
            current = next((m.id for m in stored.values() if m.parent_id == current), None)
        return ids

    first_a = run.columns[0].first_id
    assert stored[first_a or ""].parent_id == run.question.id
    a = [stored[i] for i in chain(first_a)]
    assert [m.role for m in a] == ["assistant", "tool", "assistant"]
    assert a[1].tool_results[0].status == "denied"
    assert a[2].text == "I was not allowed to look."
    b = [stored[i] for i in chain(run.columns[1].first_id)]
    assert [m.role for m in b] == ["assistant", "tool"]
    assert b[1].tool_results[0].status in ("denied", "cancelled")


async def test_two_models_on_one_provider_share_its_slots(
        ctx: AppContext, servers: list[FakeOpenAIServer]) -> None:
    from desktop.chat.events import TurnQueued

    (target,) = providers(ctx, servers[:1])
    ctx.settings.update(max_concurrent_requests=1)
    service = ChatService(ctx)
    first = held("From the first model.", after=2)
    servers[0].enqueue(first)
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("From the second model.")))
    other = CompareTarget(target.config, "model-a2")
    run = service.compare.start(NewChat(), "Share", [target, other])
    waited: list[ChatEvent] = []
    run.columns[1].observe(waited.append)
    await until(first.holding.is_set)
    await until(lambda: TurnQueued(True) in waited)
    assert len(servers[0].chat_requests) == 1  # the second waits for the slot
    first.release()
    await run.wait()
    assert [c.status for c in run.columns] == ["complete", "complete"]
    assert [r.json["model"] for r in servers[0].chat_requests] == ["model-a", "model-a2"]
    assert TurnQueued(False) in waited


async def test_compare_in_a_chat_sends_each_model_the_whole_conversation(
        ctx: AppContext, servers: list[FakeOpenAIServer]) -> None:
    targets = providers(ctx, servers[:2])
    service = ChatService(ctx)
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("Paris.")))
    turn = service.start(NewChat(system_prompt="Answer briefly."), "Capital of France?")
    assert turn.task is not None
    await turn.task
    earlier = ctx.sessions.load_messages(turn.session_id)
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("About 2 million.")))
    servers[1].enqueue(ScriptedResponse(chunks=text_stream("Roughly 2.1 million.")))
    run = service.compare.start(turn.session_id, "And its population?", targets)
    await run.wait()
    for server in servers[:2]:
        sent = server.chat_requests[-1].json["messages"]
        assert sent[0]["role"] == "system" and "Answer briefly." in sent[0]["content"]
        assert [(m["role"], m["content"]) for m in sent[1:]] == [
            ("user", "Capital of France?"), ("assistant", "Paris."),
            ("user", "And its population?")]
    assert run.question.parent_id == earlier[-1].id
    assert [m.text for m in ctx.sessions.load_messages(turn.session_id)] == [
        "Capital of France?", "Paris.", "And its population?", "About 2 million."]


async def test_an_image_goes_to_the_models_that_can_see_and_fails_the_others(
        ctx: AppContext, servers: list[FakeOpenAIServer]) -> None:
    from desktop.core.messages import ImagePart

    targets = providers(ctx, servers[:2])
    service = ChatService(ctx)
    image = ImagePart(media_type="image/png", data="iVBORw0KGgo=", name="dot.png")
    with pytest.raises(ConfigError, match="cannot see images") as refused:
        service.compare.start(NewChat(), "What is this?", targets, [image])
    assert refused.value.code == "no_vision"  # (the window words it by its code)
    assert ctx.sessions.list_sessions() == []  # nothing was created
    seeing = CompareTarget(targets[1].config, "gpt-4o")  # a vision model by its name
    servers[1].enqueue(ScriptedResponse(chunks=text_stream("A dot.")))
    run = service.compare.start(NewChat(), "What is this?", [targets[0], seeing], [image])
    await run.wait()
    assert [c.status for c in run.columns] == ["failed", "complete"]
    assert "cannot see images" in (run.columns[0].error or "")
    info = run.columns[0].error_info
    assert info is not None and info.code == "no_vision" and info.params["model"] == "model-a"
    sent = servers[1].chat_requests[0].json["messages"][-1]["content"]
    assert any(part.get("type") == "image_url" for part in sent)
    assert servers[0].chat_requests == []


async def test_each_models_request_is_recorded_under_the_chat_and_its_answer(
        ctx: AppContext, servers: list[FakeOpenAIServer]) -> None:
    targets = providers(ctx, servers)[:2]
    service = ChatService(ctx)
    servers[0].enqueue_text("First.")
    servers[1].enqueue_text("Second.")
    run = service.compare.start(NewChat(), "Which is best?", targets)
    await run.wait()
    ctx.inspector.flush()
    records = ctx.inspector.store.for_session(run.session_id)
    assert sorted(r.model for r in records) == ["model-a", "model-b"]
    by_model = {r.model: r.message_id for r in records}
    assert [by_model[c.target.model] for c in run.columns] == \
        [c.first_id for c in run.columns]
