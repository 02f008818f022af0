"""Token estimates, fitting a history into the context window, tool-call pairs."""

from __future__ import annotations

import json

import pytest

from desktop.core.context_budget import (
    IMAGE_TOKENS,
    MESSAGE_OVERHEAD,
    BudgetResult,
    estimate_message_tokens,
    estimate_text_tokens,
    estimate_tokens,
    fit_to_window,
    input_budget,
    repair_tool_pairs,
    summary_message,
    summary_source,
)
from desktop.core.messages import (
    ImagePart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)


def _assistant(text: str = "", *calls: str) -> Message:
    parts: list[TextPart | ToolCallPart] = [TextPart(text=text)] if text else []
    parts += [ToolCallPart(id=c, name="read_file", arguments='{"path": "a"}') for c in calls]
    return Message(role="assistant", parts=list(parts))


def _results(*calls: str, content: str = "ok") -> Message:
    return Message(
        role="tool",
        parts=[ToolResultPart(tool_call_id=c, name="read_file", content=content) for c in calls],
    )


def test_text_estimates_by_script() -> None:
    assert estimate_text_tokens("") == 0
    assert estimate_text_tokens("abcd" * 100) == 100
    assert estimate_text_tokens("абвг" * 100) == 200  # two characters per token
    assert estimate_text_tokens("東京" * 50) == 100  # one per ideograph
    assert estimate_text_tokens("abcd東") == 2


def test_message_estimates_include_overheads() -> None:
    plain = Message.user("abcd" * 10)
    assert estimate_message_tokens(plain) == MESSAGE_OVERHEAD + 10
    image = Message(role="user", parts=[ImagePart(data="x" * 100_000)])
    assert estimate_message_tokens(image) == MESSAGE_OVERHEAD + IMAGE_TOKENS
    call = _assistant("", "c1")
    assert estimate_message_tokens(call) > MESSAGE_OVERHEAD + 8
    assert estimate_tokens([plain], system="abcd" * 4) == (
        estimate_message_tokens(plain) + MESSAGE_OVERHEAD + 4
    )


def test_everything_fits_or_window_unknown() -> None:
    history = [Message.user("hi"), _assistant("hello")]
    result = fit_to_window(history, context_window=8000, system="sys")
    assert result.messages == history and not result.trimmed and result.notice() is None
    assert fit_to_window(history * 1000, context_window=None).messages == history * 1000


def test_input_budget_reserves_room_for_the_answer() -> None:
    assert input_budget(128_000) == 128_000 - 4096 - 6400
    assert input_budget(128_000, max_output_tokens=16_000) == 128_000 - 16_000 - 6400
    assert input_budget(1000) == 1000 - 250 - 50
    assert input_budget(1000, max_output_tokens=5000) == 1000 - 500 - 50


def _long_chat(turns: int, size: int = 400) -> list[Message]:
    history: list[Message] = [Message.system("Be helpful.")]
    for i in range(turns):
        history.append(Message.user(f"question {i} " + "q" * size))
        history.append(_assistant(f"answer {i} " + "a" * size))
    return history


def test_oldest_turns_are_dropped_first_and_system_kept() -> None:
    history = _long_chat(20)
    result = fit_to_window(history, context_window=2000, system="Top prompt.")
    assert result.trimmed and not result.over_budget
    assert result.messages[0] == history[0]  # the system message stays
    kept_questions = [m.text.split()[1] for m in result.messages if m.role == "user"]
    assert kept_questions == [str(i) for i in range(20 - len(kept_questions), 20)]
    assert result.dropped == history[1 : 1 + len(result.dropped)]
    assert len(result.dropped) % 2 == 0  # whole turns
    assert result.estimated_tokens <= result.budget
    assert result.estimated_tokens == estimate_tokens(result.messages, "Top prompt.")
    assert "left out to fit" in (result.notice() or "")
    summarized = fit_to_window(history, context_window=2000, policy="summarize")
    assert "will be summarized" in (summarized.notice() or "")


def test_tool_calls_never_lose_their_results() -> None:
    history = [
        Message.user("u1 " + "x" * 2000),
        _assistant("", "c1"),
        _results("c1", content="r" * 2000),
        _assistant("done one"),
        Message.user("u2"),
        _assistant("", "c2"),
        _results("c2", content="s" * 8000),
        _assistant("", "c3"),
        _results("c3", content="t" * 100),
        _assistant("", "c4"),  # the current round: asked, not answered yet
    ]
    result = fit_to_window(history, context_window=2400)
    ids = [m.id for m in result.messages]
    assert result.dropped[:4] == history[:4]  # the whole first turn
    for call, results in ((history[5], history[6]), (history[7], history[8])):
        assert (call.id in ids) == (results.id in ids)  # pairs stay or go together
    assert ids[-1] == history[-1].id and history[4].id in ids  # current turn's ends stay
    assert history[5].id not in ids  # its oldest complete round went next
    assert not result.over_budget


def test_when_even_the_current_turn_is_too_long() -> None:
    history = [Message.user("old"), _assistant("old answer"), Message.user("z" * 40_000)]
    result = fit_to_window(history, context_window=4000, system="sys")
    assert result.over_budget
    assert result.messages == [history[2]]
    assert "longer than the model accepts" in (result.notice() or "")


def test_summary_helpers() -> None:
    dropped = [
        Message.user("What is 2+2?"),
        _assistant("", "c1"),
        _results("c1"),
        _assistant("It is 4."),
    ]
    text = summary_source(dropped)
    assert "User: What is 2+2?" in text and "Assistant called read_file" in text
    assert "read_file returned: ok" in text and "Assistant: It is 4." in text
    message = summary_message("They asked for arithmetic.")
    assert message.role == "system" and "They asked for arithmetic." in message.text
    assert isinstance(BudgetResult([]).notice(), type(None))


def test_repair_gives_unanswered_calls_a_result() -> None:
    history = [Message.user("go"), _assistant("", "c1", "c2"), _results("c1"), Message.user("next")]
    repaired = repair_tool_pairs(history)
    assert [m.role for m in repaired] == ["user", "assistant", "tool", "tool", "user"]
    synthetic = repaired[3].parts[0]
    assert isinstance(synthetic, ToolResultPart)
    assert (synthetic.tool_call_id, synthetic.status, synthetic.is_error) == (
        "c2",
        "cancelled",
        True,
    )
    assert json.loads(synthetic.content)["error"]["code"] == "interrupted"
    assert repaired[:3] == history[:3]  # untouched messages are the same objects' values
    tail = repair_tool_pairs([Message.user("go"), _assistant("", "c9")])
    assert [m.role for m in tail] == ["user", "assistant", "tool"]


def test_repair_drops_results_without_a_call() -> None:
    orphan = _results("nowhere")
    mixed = Message(
        role="tool",
        parts=[
            ToolResultPart(tool_call_id="c1", name="n", content="x"),
            ToolResultPart(tool_call_id="ghost", name="n", content="y"),
        ],
    )
    history = [Message.user("go"), orphan, _assistant("", "c1"), mixed]
    repaired = repair_tool_pairs(history)
    assert [m.role for m in repaired] == ["user", "assistant", "tool"]
    assert [
        p.tool_call_id
        for p in repaired[2].parts  # type: ignore[union-attr]
        if isinstance(p, ToolResultPart)
    ] == ["c1"]
    assert history[3].parts[1].tool_call_id == "ghost"  # type: ignore[union-attr]


@pytest.mark.parametrize("window", [500, 1000, 3000, 10_000])
def test_result_is_always_a_valid_history(window: int) -> None:
    history = repair_tool_pairs(
        [
            *_long_chat(5, 200),
            Message.user("use tools"),
            _assistant("", "a", "b"),
            _results("a", "b"),
            _assistant("", "c"),
            _results("c"),
            _assistant("final"),
        ]
    )
    result = fit_to_window(history, context_window=window)
    assert repair_tool_pairs(result.messages) == result.messages  # no broken pair
    assert result.messages[0].role == "system"
    assert result.messages[-1] == history[-1]
