"""The chat's model: one item per block on screen (a user message, or the assistant
messages of one turn), with a height that is estimated until the item is laid out."""

from __future__ import annotations

import itertools

import msgspec

from desktop.core.messages import Message, ToolResultPart
from desktop.ui.chat.message_widget import MessageWidget


class ChatItem(msgspec.Struct):
    """One block of the chat: a user message, or the assistant messages of one turn."""

    messages: list[Message]  # the first message, then continuations of the same turn
    results: dict[str, ToolResultPart] = msgspec.field(default_factory=dict)
    height: int = 0
    measured_width: int = -1  # the width ``height`` was measured at; -1: estimated
    widget: MessageWidget | None = None

    @property
    def role(self) -> str:
        return self.messages[0].role

    def replace(self, message: Message) -> bool:
        for index, existing in enumerate(self.messages):
            if existing.id == message.id:
                self.messages[index] = message
                return True
        return False

    def texts(self) -> list[str]:
        """The markdown its widget renders: each message's reasoning and text."""
        return [t for m in self.messages for t in (m.reasoning, m.body_text) if t]

    def markdown(self) -> str:
        return "\n\n".join(m.body_text for m in self.messages if m.body_text.strip())


def group_messages(messages: list[Message]) -> list[ChatItem]:
    """Items for a stored conversation: tool and system messages are not shown (their
    results go to the item holding the call); an assistant message right after another
    assistant block continues it."""
    results = {r.tool_call_id: r for m in messages for r in m.tool_results}
    items: list[ChatItem] = []
    for message in messages:
        if message.role in {"tool", "system"}:
            continue
        if message.role == "assistant" and items and items[-1].role == "assistant":
            items[-1].messages.append(message)
        else:
            items.append(ChatItem([message]))
        for call in message.tool_calls:
            if call.id in results:
                items[-1].results[call.id] = results[call.id]
    return items


class Metrics(msgspec.Struct):
    """What a height estimate needs: average character width and line height."""

    char_width: float
    line_height: float
    chrome: int  # header, padding, margins of a message block


def estimate_height(item: ChatItem, width: int, metrics: Metrics) -> int:
    """A cheap guess (no layout): lines of wrapped text plus the block's chrome."""
    per_line = max(20.0, (width - 32) / metrics.char_width)
    lines = 0.0
    for message in item.messages:
        text = message.body_text
        lines += len(text) / per_line + text.count("\n") * 0.55 + 1
        lines += text.count("```") * 1.2
        if message.reasoning:
            lines += 1.5
        if message.tool_calls:
            lines += 1.5
        lines += 3 * (len(message.attachment_names))
    return int(metrics.chrome + lines * metrics.line_height)


def prefix_tops(heights: list[int], top: int, spacing: int) -> list[int]:
    """Item tops for the given heights; the last entry is the end of the content."""
    return list(itertools.accumulate((h + spacing for h in heights), initial=top))
