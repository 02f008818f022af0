"""Elicitation and sampling approval on a terminal (``assista ask`` on a TTY)."""

from __future__ import annotations

import io
from collections.abc import Callable

from desktop.cli.mcp_terminal import TerminalElicitor, TerminalSamplingApprover
from desktop.core.messages import Message, TextPart
from desktop.tools.mcp.server_requests import ElicitationRequest, SamplingRequest

SCHEMA = {"type": "object", "required": ["name", "age"],
          "properties": {"name": {"type": "string", "title": "Name"},
                         "age": {"type": "integer", "description": "Your age"},
                         "tags": {"type": "array"}}}
REQUEST = ElicitationRequest("features", "Who are you?", SCHEMA)


def answers(*lines: str) -> Callable[[str], str]:
    queue = list(lines)
    return lambda _prompt: queue.pop(0)


async def test_elicitation_on_a_tty_types_the_answers() -> None:
    err = io.StringIO()
    # name, age, tags (optional, left empty); "seven" is not an integer: age is asked again
    elicitor = TerminalElicitor(err, answers("Ann", "seven", "", "7"), lambda: True)
    answer = await elicitor(REQUEST)
    assert answer.action == "accept" and answer.content == {"name": "Ann", "age": 7}
    assert "MCP server 'features' asks: Who are you?" in err.getvalue()
    assert "age must be an integer" in err.getvalue()


async def test_elicitation_declined_by_an_empty_answer_or_without_a_tty() -> None:
    assert (await TerminalElicitor(io.StringIO(), answers(""), lambda: True)(REQUEST)).action \
        == "decline"
    untouched = TerminalElicitor(io.StringIO(), answers(), lambda: False)
    assert (await untouched(REQUEST)).action == "decline"


async def test_sampling_shows_the_exact_messages_and_needs_yes() -> None:
    request = SamplingRequest("features", [Message(role="user",
                                                   parts=[TextPart(text="A haiku on rain")])],
                              max_tokens=50, system_prompt="You write haiku.")
    err = io.StringIO()
    assert await TerminalSamplingApprover(err, answers("y"), lambda: True)(request) is True
    assert err.getvalue() == ("\nMCP server 'features' asks the model to answer "
                              "(at most 50 tokens):\n[system] You write haiku.\n"
                              "[user] A haiku on rain\n")
    assert await TerminalSamplingApprover(err, answers(""), lambda: True)(request) is False
    assert await TerminalSamplingApprover(err, answers(), lambda: False)(request) is False
