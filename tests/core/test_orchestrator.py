from __future__ import annotations

import asyncio
import json

import pytest

from desktop.core.agent_events import (
    AssistantFinished,
    LimitReached,
    RunFinished,
    ToolRunFinished,
    ToolRunStarted,
)
from desktop.core.events import (
    EndEvent,
    ErrorEvent,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    UsageEvent,
)
from desktop.core.messages import Message, Usage
from desktop.core.orchestrator import Orchestrator
from desktop.core.provider_options import RequestOptions
from desktop.core.settings import AgentSettings
from tests.core.scripted import EchoTools, ScriptedProvider, text_reply, tool_reply


def collect() -> tuple[list[object], object]:
    events: list[object] = []
    return events, events.append


async def test_plain_answer_is_accumulated() -> None:
    provider = ScriptedProvider([[ReasoningDelta("hmm "), ReasoningDelta("ok"),
                                  *text_reply("Hello there"),
                                  ]])
    history = [Message.user("hi")]
    events, sink = collect()
    result = await Orchestrator(provider, EchoTools()).run(history, model="m", sink=sink)
    assert result.status == "complete"
    assert result.text == "Hello there"
    assert history[-1].role == "assistant"
    assert history[-1].reasoning == "hmm ok"
    assert [p.type for p in history[-1].parts] == ["reasoning", "text"]
    assert isinstance(events[-1], RunFinished)


async def test_multi_round_tool_use_feeds_results_back() -> None:
    provider = ScriptedProvider([
        tool_reply(("c1", "echo", '{"a": 1}'), ("c2", "echo", '{"b": 2}'), text="Let me check."),
        tool_reply(("c3", "echo", '{"c": 3}')),
        text_reply("Done."),
    ])
    tools = EchoTools()
    history = [Message.user("go")]
    events, sink = collect()
    result = await Orchestrator(provider, tools).run(history, model="m", sink=sink)
    assert result.status == "complete"
    assert [m.role for m in history] == ["user", "assistant", "tool", "assistant", "tool",
                                         "assistant"]
    # results keep the order the model asked for
    assert [r.tool_call_id for r in history[2].tool_results] == ["c1", "c2"]
    # the second request carried the first round's calls and results
    second = provider.requests[1]
    assert second.messages[1].tool_calls[0].id == "c1"
    assert second.messages[2].tool_results[1].content == '{"b": 2}'
    assert [t.name for t in second.tools] == ["echo", "block"]
    assert sum(isinstance(e, ToolRunStarted) for e in events) == 3
    assert sum(isinstance(e, ToolRunFinished) for e in events) == 3


async def test_iteration_guard_stops_a_loop_that_never_converges() -> None:
    provider = ScriptedProvider([tool_reply((f"c{i}", "echo", "{}")) for i in range(20)])
    settings = AgentSettings(max_iterations=3, tool_round_limit=50)
    history = [Message.user("loop")]
    result = await Orchestrator(provider, EchoTools(), settings).run(history, model="m")
    assert result.status == "error"
    assert "iteration limit" in (result.error or "")
    assert len(provider.requests) == 3
    # history stays valid: every call has its result
    assert history[-1].role == "tool"


async def test_limit_stop_behaviour() -> None:
    provider = ScriptedProvider([tool_reply((f"c{i}", "echo", "{}")) for i in range(10)])
    settings = AgentSettings(tool_round_limit=2, limit_behavior="stop")
    events, sink = collect()
    asked: list[int] = []

    async def confirm(rounds: int) -> bool:
        asked.append(rounds)
        return True

    result = await Orchestrator(provider, EchoTools(), settings, confirm_continue=confirm).run(
        [Message.user("x")], model="m", sink=sink)
    assert result.status == "limit"
    assert asked == []
    assert len(provider.requests) == 2
    assert any(isinstance(e, LimitReached) and not e.will_ask for e in events)


async def test_limit_confirm_continue_then_decline() -> None:
    provider = ScriptedProvider([tool_reply((f"c{i}", "echo", "{}")) for i in range(10)])
    settings = AgentSettings(tool_round_limit=2, limit_behavior="confirm")
    answers = [True, False]
    asked: list[int] = []

    async def confirm(rounds: int) -> bool:
        asked.append(rounds)
        return answers.pop(0)

    result = await Orchestrator(provider, EchoTools(), settings, confirm_continue=confirm).run(
        [Message.user("x")], model="m")
    assert asked == [2, 2]
    assert result.status == "limit"
    assert len(provider.requests) == 4


async def stopped_while_streaming(provider: ScriptedProvider
                                  ) -> tuple[list[Message], list[object]]:
    """A run stopped where ``provider`` hangs: its history and the events it sent."""
    history = [Message.user("x")]
    events, sink = collect()
    task = asyncio.create_task(Orchestrator(provider, EchoTools()).run(history, model="m",
                                                                        sink=sink))
    await provider.streaming.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return history, events


async def test_cancel_while_streaming_keeps_partial_answer() -> None:
    provider = ScriptedProvider([[TextDelta("partial "), TextDelta("answer"), TextDelta("never")]],
                                hang_after=2)
    history, events = await stopped_while_streaming(provider)
    assert history[-1].status == "stopped"
    assert history[-1].text == "partial answer"
    finished = [e for e in events if isinstance(e, AssistantFinished)]
    assert finished and finished[0].message.status == "stopped"
    assert isinstance(events[-1], RunFinished) and events[-1].status == "stopped"


@pytest.mark.parametrize("reply", ["text", "tool calls"])
async def test_cancel_after_the_stream_ended_keeps_a_whole_answer_complete(reply: str) -> None:
    """Stopped while the stream closes after its end (the user stops just as the answer
    is done): a whole answer is complete; one with calls that will not run is stopped,
    without them."""
    script: list[StreamEvent] = [TextDelta("whole "), TextDelta("answer"), EndEvent("stop")] \
        if reply == "text" \
        else tool_reply(("c1", "echo", "{}"), text="calling")
    provider = ScriptedProvider([[*script, TextDelta("never")]], hang_after=len(script))
    history, events = await stopped_while_streaming(provider)
    answer = history[-1]
    if reply == "text":
        assert (answer.status, answer.text, answer.finish_reason) == \
            ("complete", "whole answer", "stop")
    else:
        assert (answer.status, answer.text, answer.tool_calls) == ("stopped", "calling", [])
    assert isinstance(events[-1], RunFinished) and events[-1].status == "stopped"


async def test_cancel_during_tool_keeps_history_valid() -> None:
    provider = ScriptedProvider([tool_reply(("c1", "block", "{}"), ("c2", "echo", "{}"))])
    tools = EchoTools()
    history = [Message.user("x")]
    task = asyncio.create_task(Orchestrator(provider, tools).run(history, model="m"))
    await tools.blocking.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    results = history[-1].tool_results
    assert [r.tool_call_id for r in results] == ["c1", "c2"]
    assert results[0].status == "cancelled"


async def test_provider_error_ends_turn_and_keeps_text() -> None:
    provider = ScriptedProvider([[TextDelta("so far"), ErrorEvent("overloaded", status=529)]])
    history = [Message.user("x")]
    result = await Orchestrator(provider, EchoTools()).run(history, model="m")
    assert result.status == "error"
    assert result.error == "overloaded"
    assert history[-1].status == "error"
    assert history[-1].text == "so far"


async def test_invalid_arguments_corrected_by_model() -> None:
    provider = ScriptedProvider([
        tool_reply(("c1", "echo", "{bad json")),
        tool_reply(("c2", "echo", '{"fixed": true}')),
        text_reply("ok"),
    ])
    history = [Message.user("x")]
    result = await Orchestrator(provider, EchoTools()).run(history, model="m")
    assert result.status == "complete"
    assert history[2].tool_results[0].is_error
    # the model saw the error result, then sent a corrected call
    assert provider.requests[1].messages[-1].tool_results[0].is_error
    assert json.loads(history[4].tool_results[0].content) == {"fixed": True}


async def test_usage_is_summed_over_rounds() -> None:
    provider = ScriptedProvider([
        [*tool_reply(("c1", "echo", "{}"))[:-1], UsageEvent(Usage(input_tokens=10,
                                                                  output_tokens=2)),
         *tool_reply(("c1", "echo", "{}"))[-1:]],
        [TextDelta("x"), UsageEvent(Usage(input_tokens=20, output_tokens=3))],
    ])
    result = await Orchestrator(provider, EchoTools()).run([Message.user("x")], model="m")
    assert result.usage.input_tokens == 30
    assert result.usage.output_tokens == 5


async def test_request_options_reach_every_request() -> None:
    provider = ScriptedProvider([tool_reply(("c1", "echo", "{}")), text_reply("ok")])
    options = RequestOptions(reasoning=True, reasoning_budget=2048, reasoning_effort="high",
                             temperature=1.0)
    orchestrator = Orchestrator(provider, EchoTools(), request_options=options)
    await orchestrator.run([Message.user("x")], model="m", temperature=0.3)
    for request in provider.requests:
        assert request.reasoning is True and request.reasoning_budget == 2048
        assert request.reasoning_effort == "high"
        assert request.max_tokens is None and request.temperature == 0.3  # the run's wins


async def test_thinking_parameters_only_go_with_thinking_on() -> None:
    provider = ScriptedProvider([text_reply("ok")])
    options = RequestOptions(reasoning=False, reasoning_budget=8192, reasoning_effort="medium",
                             max_tokens=500)
    await Orchestrator(provider, EchoTools(), request_options=options).run(
        [Message.user("x")], model="m")
    request = provider.requests[0]
    assert (request.reasoning, request.reasoning_budget, request.reasoning_effort) == (
        False, None, None)
    assert request.max_tokens == 500


async def test_old_turns_are_left_out_to_fit_the_context_window() -> None:
    from desktop.core.agent_events import ContextTrimmed

    long = "word " * 4000  # about 5k tokens
    history = [Message.user(long), Message(role="assistant", parts=[]),
               Message.user("and now?")]
    history[1] = Message(role="assistant", parts=history[0].parts)
    provider = ScriptedProvider([text_reply("fits")])
    events, sink = collect()
    orchestrator = Orchestrator(provider, EchoTools(), context_window=4000)
    result = await orchestrator.run(history, model="m", system="sys", sink=sink)
    assert result.status == "complete"
    sent = provider.requests[0].messages
    assert [m.text for m in sent] == ["and now?"]
    trimmed = [e for e in events if isinstance(e, ContextTrimmed)]
    assert trimmed and trimmed[0].dropped == 2 and "left out" in trimmed[0].notice


async def test_summarize_policy_puts_a_summary_in_the_system_prompt() -> None:
    long = "word " * 4000
    history = [Message.user(long), Message(role="assistant", parts=Message.user(long).parts),
               Message.user("and now?")]
    provider = ScriptedProvider([text_reply("They talked about words."), text_reply("ok")])
    orchestrator = Orchestrator(provider, EchoTools(), context_window=4000,
                                overflow="summarize")
    await orchestrator.run(history, model="m", system="sys")
    summary_request, answer_request = provider.requests
    assert "Summarize" in (summary_request.system or "")
    assert answer_request.system is not None
    assert "They talked about words." in answer_request.system
    assert answer_request.system.startswith("sys")


async def test_unanswered_tool_call_in_history_gets_a_result() -> None:
    from desktop.core.messages import ToolCallPart

    history = [Message.user("x"),
               Message(role="assistant", parts=[ToolCallPart(id="c9", name="echo")]),
               Message.user("y")]
    provider = ScriptedProvider([text_reply("ok")])
    await Orchestrator(provider, EchoTools()).run(history, model="m")
    sent = provider.requests[0].messages
    assert any(r.tool_call_id == "c9" for m in sent for r in m.tool_results)
    assert not any(m.role == "tool" for m in history[:3])  # nothing stored
