"""Keeping a conversation inside the model's context window (pure: no I/O, no Qt).

Token counts are estimated without a tokenizer: about four ASCII characters
per token, two other characters (Cyrillic, Greek, accented Latin...) per
token, one token per CJK/kana/Hangul character, plus small overheads per
message and per tool call/result. It errs on the generous side.

:func:`fit_to_window` leaves out the oldest turns (a user message and
everything answering it) when the conversation would not fit, keeping a margin
for the answer. It never leaves out a system message, and never separates a
tool call from its result: whole turns go first, then, if the current turn
alone is too long, its oldest complete tool rounds. With the "summarize" policy
the same messages are reported for the caller to summarize (see
:func:`summary_source` and :func:`summary_message`). The store keeps everything:
only the request is shortened.

:func:`repair_tool_pairs` makes a history safe to send after a crash or a stop:
each tool call gets a result (a synthetic "interrupted" one if missing) and
results without their call are left out.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Literal

import msgspec

from desktop.core.messages import (
    ImagePart,
    Message,
    Part,
    ReasoningPart,
    SourcesPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

OverflowPolicy = Literal["drop", "summarize"]

MESSAGE_OVERHEAD = 4
TOOL_CALL_OVERHEAD = 8
TOOL_RESULT_OVERHEAD = 6
IMAGE_TOKENS = 800
DEFAULT_OUTPUT_RESERVE = 4096
SAFETY_MARGIN = 0.05  # of the window, for estimation error

_DENSE_RANGES = (
    (0x3040, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),
    (0x20000, 0x3134F),
)


def estimate_text_tokens(text: str) -> int:
    if not text:
        return 0
    if text.isascii():
        return math.ceil(len(text) / 4)
    ascii_chars = dense = other = 0
    for ch in text:
        code = ord(ch)
        if code < 128:
            ascii_chars += 1
        elif any(a <= code <= b for a, b in _DENSE_RANGES):
            dense += 1
        else:
            other += 1
    return math.ceil(ascii_chars / 4 + other / 2) + dense


def estimate_part_tokens(part: Part) -> int:
    if isinstance(part, TextPart | ReasoningPart):
        return estimate_text_tokens(part.text)
    if isinstance(part, ToolCallPart):
        return TOOL_CALL_OVERHEAD + estimate_text_tokens(part.name + part.arguments)
    if isinstance(part, ToolResultPart):
        return TOOL_RESULT_OVERHEAD + estimate_text_tokens(part.content)
    if isinstance(part, ImagePart):
        return IMAGE_TOKENS
    if isinstance(part, SourcesPart):
        return sum(estimate_text_tokens(f"{s.title} {s.url or ''}") for s in part.sources)
    return 0


def estimate_message_tokens(message: Message) -> int:
    return MESSAGE_OVERHEAD + sum(estimate_part_tokens(p) for p in message.parts)


def estimate_tokens(messages: Sequence[Message], system: str | None = None) -> int:
    total = sum(estimate_message_tokens(m) for m in messages)
    if system:
        total += MESSAGE_OVERHEAD + estimate_text_tokens(system)
    return total


def input_budget(context_window: int, max_output_tokens: int | None = None) -> int:
    """Tokens the request may use: the window minus the answer's reserve and a margin."""
    reserve = max_output_tokens or min(DEFAULT_OUTPUT_RESERVE, context_window // 4)
    reserve = min(reserve, context_window // 2)
    return max(0, context_window - reserve - int(context_window * SAFETY_MARGIN))


class BudgetResult(msgspec.Struct, frozen=True):
    """What fitting a conversation into the context window kept, left out and counted."""

    messages: list[Message]  # what to send
    dropped: list[Message] = msgspec.field(default_factory=list)  # left out, oldest first
    policy: OverflowPolicy = "drop"
    estimated_tokens: int = 0  # system prompt + messages sent
    budget: int = 0
    over_budget: bool = False  # even the system prompt and the current turn do not fit

    @property
    def trimmed(self) -> bool:
        return bool(self.dropped)

    def notice(self) -> str | None:
        """A sentence for the user when something was left out, else ``None``."""
        if self.over_budget:
            return (
                f"This message and its context (about {self.estimated_tokens:,} tokens) "
                f"are longer than the model accepts (about {self.budget:,}). Shorten it "
                "or choose a model with a larger context window."
            )
        if not self.dropped:
            return None
        n = len(self.dropped)
        what = f"{n} older message{'s' if n != 1 else ''}"
        if self.policy == "summarize":
            return f"{what} will be summarized to fit the model's context window."
        return f"{what} {'were' if n != 1 else 'was'} left out to fit the model's context window."


def fit_to_window(
    messages: Sequence[Message],
    *,
    context_window: int | None,
    max_output_tokens: int | None = None,
    system: str | None = None,
    policy: OverflowPolicy = "drop",
) -> BudgetResult:
    """Leave out the oldest turns until the request fits (see the module doc).

    ``context_window=None`` (unknown) keeps everything.
    """
    history = list(messages)
    total = estimate_tokens(history, system)
    if context_window is None or context_window <= 0:
        return BudgetResult(history, policy=policy, estimated_tokens=total, budget=0)
    budget = input_budget(context_window, max_output_tokens)
    if total <= budget:
        return BudgetResult(history, policy=policy, estimated_tokens=total, budget=budget)
    units = _droppable_units(history)
    dropped_ids: set[str] = set()
    for unit in units:
        if total <= budget:
            break
        dropped_ids.update(m.id for m in unit)
        total -= sum(estimate_message_tokens(m) for m in unit)
    kept = [m for m in history if m.id not in dropped_ids]
    dropped = [m for m in history if m.id in dropped_ids]
    return BudgetResult(kept, dropped, policy, total, budget, over_budget=total > budget)


def _droppable_units(history: list[Message]) -> list[list[Message]]:
    """Groups that may be left out together, oldest first: every turn but the last,
    then the last turn's tool rounds except its newest. System messages stay."""
    turns: list[list[Message]] = []
    for message in history:
        if message.role == "system":
            continue
        if message.role == "user" or not turns:
            turns.append([])
        turns[-1].append(message)
    if not turns:
        return []
    units = turns[:-1]
    rounds: list[list[Message]] = []
    for message in turns[-1]:
        if message.role == "assistant":
            rounds.append([message])
        elif message.role == "tool" and rounds:
            rounds[-1].append(message)
    complete = [r for r in rounds[:-1] if r[0].tool_calls and len(r) > 1]
    return units + complete


def summary_source(dropped: Sequence[Message]) -> str:
    """The left-out messages as a plain transcript, for a summarization request."""
    lines: list[str] = []
    for message in dropped:
        for part in message.parts:
            if isinstance(part, TextPart) and part.text.strip():
                lines.append(f"{message.role.capitalize()}: {part.text.strip()}")
            elif isinstance(part, ToolCallPart):
                lines.append(f"Assistant called {part.name}({part.arguments[:200]})")
            elif isinstance(part, ToolResultPart):
                lines.append(f"{part.name} returned: {part.content[:500]}")
    return "\n\n".join(lines)


SUMMARY_INSTRUCTION = (
    "Summarize the conversation below in a few short paragraphs, keeping names, numbers, "
    "decisions and open questions. Write only the summary."
)


def summary_message(summary: str) -> Message:
    """The system message that stands for the left-out turns in later requests."""
    return Message.system(f"Summary of the earlier part of this conversation:\n{summary}")


def repair_tool_pairs(messages: Sequence[Message]) -> list[Message]:
    """Give every tool call a result and drop results without a call (see module doc).

    The synthetic results are new messages for the request only; nothing is stored.
    """
    out: list[Message] = []
    pending: dict[str, ToolCallPart] = {}

    def close_round() -> None:
        if pending:
            out.append(Message(role="tool", parts=[_interrupted(c) for c in pending.values()]))
            pending.clear()

    for message in messages:
        if message.role == "tool":
            parts = [
                p
                for p in message.parts
                if not isinstance(p, ToolResultPart) or p.tool_call_id in pending
            ]
            for part in parts:
                if isinstance(part, ToolResultPart):
                    pending.pop(part.tool_call_id, None)
            if any(isinstance(p, ToolResultPart) for p in parts):
                out.append(
                    message
                    if len(parts) == len(message.parts)
                    else message.model_copy(update={"parts": parts})
                )
            continue
        close_round()
        out.append(message)
        if message.role == "assistant":
            pending.update((c.id, c) for c in message.tool_calls)
    close_round()
    return out


def _interrupted(call: ToolCallPart) -> ToolResultPart:
    content = json.dumps(
        {
            "status": "error",
            "error": {
                "code": "interrupted",
                "message": "This tool call did not finish (the app was "
                "stopped or closed); it has no result.",
            },
        }
    )
    return ToolResultPart(
        tool_call_id=call.id, name=call.name, content=content, is_error=True, status="cancelled"
    )
