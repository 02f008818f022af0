"""Turns on the one real path (ChatService -> TurnRunner): a loopback server, a real
data folder; what is saved as a turn runs, with tool rounds and regenerated branches."""

from __future__ import annotations

from pathlib import Path

from desktop.app import AppContext
from desktop.chat.events import ChatEvent, TurnEnded, TurnFailed
from desktop.chat.profile import NewChat
from desktop.chat.service import ChatService
from desktop.chat.turn_plan import TurnOverrides
from desktop.tools.approval import allow_all
from tests.support.openai_server import FakeOpenAIServer


def tools_in(workspace: Path) -> TurnOverrides:
    (workspace / "notes.txt").write_text("hello")
    return TurnOverrides(workspace=str(workspace), tools=["list_directory"])


async def test_a_turn_saves_the_question_each_answer_and_the_tool_results(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext,
        tmp_path: Path) -> None:
    server.enqueue_tool_calls([("list_directory", '{"path": "."}')])
    server.enqueue_text("Final")
    turn = service.start(NewChat(), "hello", overrides=tools_in(tmp_path),
                         approver=allow_all)
    assert turn.task is not None
    await turn.task
    assert turn.result is not None and turn.result.text == "Final", turn.failure
    stored = ctx.sessions.load_messages(turn.session_id)
    assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert [m.id for m in stored] == [m.id for m in turn.history]
    assert stored[-1].status == "complete" and stored[-1].text == "Final"
    assert "notes.txt" in stored[2].parts[0].content  # type: ignore[union-attr]
    assert service.running(turn.session_id) is None


async def test_regenerating_with_tools_is_a_branch_beside_the_first_answer(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext,
        tmp_path: Path) -> None:
    server.enqueue_text("plain answer")
    first = service.start(NewChat(), "question")
    assert first.task is not None
    await first.task
    sid = first.session_id
    question, answer = ctx.sessions.load_messages(sid)
    assert answer.text == "plain answer"

    server.enqueue_tool_calls([("list_directory", '{"path": "."}')])
    server.enqueue_text("answer after the tool")
    again = service.start(sid, "", regenerate=True, branch_from=answer.id,
                          overrides=tools_in(tmp_path), approver=allow_all)
    assert again.task is not None
    await again.task
    branch = ctx.sessions.load_active_branch(sid)
    assert [m.role for m in branch.messages] == ["user", "assistant", "tool", "assistant"]
    assert branch.messages[-1].text == "answer after the tool"
    assert branch.position(branch.messages[1].id).label == "2/2"  # type: ignore[union-attr]
    assert [m.id for m in branch.messages] == [m.id for m in again.history]
    sent = server.chat_requests[1].json["messages"]
    assert [m["role"] for m in sent if m["role"] != "system"] == ["user"]  # only the branch
    assert len(ctx.sessions.load_all_messages(sid)) == 5
    assert question.id == branch.messages[0].id


async def test_a_turn_that_cannot_be_sent_fails_once_and_frees_the_chat(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    server.enqueue_error(400, "no such model")
    seen: list[ChatEvent] = []
    turn = service.start(NewChat(), "hello")
    service.observe(turn.session_id, seen.append)
    assert turn.task is not None
    await turn.task
    ended = [e for e in seen if isinstance(e, TurnEnded)]
    assert [e.status for e in ended] == ["error"]
    assert not [e for e in seen if isinstance(e, TurnFailed)]  # an answer that failed
    assert service.state(turn.session_id) == "failed"
    assert service.running(turn.session_id) is None
    assert ctx.sessions.load_messages(turn.session_id)[-1].status == "error"
