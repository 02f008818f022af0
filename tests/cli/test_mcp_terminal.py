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


CHECKED = {"type": "object", "required": ["size", "count", "email"],
           "properties": {
               "size": {"type": "string", "enum": ["s", "m", "l"],
                        "enumNames": ["Small", "Medium", "Large"]},
               "count": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
               "email": {"type": "string", "format": "email"},
               "site": {"type": "string", "format": "uri"},
               "day": {"type": "string", "format": "date"},
               "colours": {"type": "array", "items": {"anyOf": [
                   {"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]}}}}


async def test_answers_are_checked_against_the_schema_and_asked_again() -> None:
    err = io.StringIO()
    prompts: list[str] = []
    queue = ["xl", "11", "not-an-email", "nowhere", "31/12/2026", "Red, 2",  # first pass
             "Large", "", "ann@example.com", "https://example.com", "2026-12-31"]

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return queue.pop(0)

    answer = await TerminalElicitor(err, read, lambda: True)(
        ElicitationRequest("shop", "Order", CHECKED))
    assert answer.action == "accept"
    assert answer.content == {"size": "l", "count": 3, "email": "ann@example.com",
                              "site": "https://example.com", "day": "2026-12-31",
                              "colours": ["r", "g"]}
    said = err.getvalue()
    assert "size: choose one of Small, Medium, Large" in said
    assert "count: must be at most 10" in said
    assert "email: not a valid email" in said
    assert "site: not a valid uri" in said
    assert "day: not a valid date" in said
    # The questions show the choices, the limits and the default.
    assert "one of: 1) Small, 2) Medium, 3) Large" in prompts[0]
    assert "at least 1; at most 10; default: 3" in prompts[1]
    assert "several of: 1) Red, 2) Green" in prompts[5]


def test_tool_lines_wait_until_the_open_question_is_answered() -> None:
    from desktop.cli.terminal_lines import TerminalLines

    err = io.StringIO()
    lines = TerminalLines(err)

    def read(prompt: str) -> str:
        err.write(prompt)
        lines.write("  ✓ succeeded\n")  # another call ends while the question is open
        err.write("Ann\n")  # what the person typed, echoed by the terminal
        return "Ann"

    assert lines.asking(read)("Name (text): ") == "Ann"
    assert err.getvalue() == "Name (text): Ann\n  ✓ succeeded\n"
