"""Elicitation against the protocol's reference server (server-everything, from npm)
over each transport: its ``trigger-elicitation-request`` asks for a form of every kind
of field the spec allows (strings with formats, bounded numbers, enums with and without
titles, multi-selects, defaults); a person's typed answers are read and checked against
that schema, and the server echoes what it received. Declining and cancelling reach it
too, and so does URL mode (``trigger-url-elicitation``)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from desktop.core.messages import ToolCallPart
from desktop.tools import ToolExecutor
from desktop.tools.approval import allow_all
from desktop.tools.mcp import McpManager
from desktop.tools.mcp.server_requests import (
    ElicitationAnswer,
    ElicitationRequest,
    choices,
    coerce_answer,
)
from tests.tools.mcp_reference import PLAIN_PATH, NodeServer, config, everything_command

# What a person types into the form (text, as on a terminal or in the panel); the
# fields left out take the server's defaults.
TYPED = {"name": "Ada Lovelace", "check": "yes", "email": "ada@example.org",
         "homepage": "https://ada.example.org/", "birthdate": "1815-12-10", "integer": "7",
         "untitledSingleSelectEnum": "Phoebe", "titledSingleSelectEnum": "Wonder Woman",
         "titledMultipleSelectEnum": "Tuna, Trout", "legacyTitledEnum": "Dogs"}


class Person:
    """Answers each question as told by ``actions`` (accept, decline or cancel)."""

    def __init__(self, *actions: str) -> None:
        self.actions = list(actions)
        self.asked: list[ElicitationRequest] = []

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.asked.append(request)
        action = self.actions.pop(0)
        if action != "accept":
            return ElicitationAnswer(action)  # type: ignore[arg-type]
        if request.url is not None:
            return ElicitationAnswer("accept")
        return ElicitationAnswer("accept", coerce_answer(request, TYPED))


@pytest.fixture(scope="module")
def http_servers() -> Iterator[dict[str, NodeServer]]:
    everything_command()
    servers = {"http": NodeServer("streamableHttp"), "sse": NodeServer("sse")}
    try:
        yield servers
    finally:
        for server in servers.values():
            server.stop()


async def run(mcp: McpManager, name: str, args: dict[str, object]) -> str:
    executor = ToolExecutor(mcp.registry(), None, approver=allow_all)
    part = await executor.run(ToolCallPart(id="c", name=f"everything__{name}",
                                           arguments=json.dumps(args)))
    return part.content


def raw_result(text: str) -> dict[str, object]:
    """The ElicitResult the server received, as it echoes it (``Raw result: {...}``)."""
    for block in json.loads(text)["result"]["content"]:
        if "Raw result:" in block["text"]:
            return dict(json.loads(block["text"].split("Raw result:", 1)[1]))
    raise AssertionError(f"no raw result in {text}")


@pytest.mark.parametrize("transport", ["stdio", "http", "sse"])
async def test_form_answers_reach_the_server_and_decline_and_cancel_too(
        transport: str, request: pytest.FixtureRequest) -> None:
    servers = request.getfixturevalue("http_servers") if transport != "stdio" else None
    person = Person("accept", "decline", "cancel")
    mcp = McpManager([config(transport, servers)], login_path=PLAIN_PATH, backoff_s=0.01,
                     elicitor=person)
    try:
        assert await mcp.start_all() == {"everything": True}
        accepted = await run(mcp, "trigger-elicitation-request", {})
        declined = await run(mcp, "trigger-elicitation-request", {})
        cancelled = await run(mcp, "trigger-elicitation-request", {})
    finally:
        await mcp.stop_all()

    # The question as the server asked it: its fields in order, choices by title,
    # defaults, and what is required.
    question = person.asked[0]
    assert question.server == "everything" and question.url is None
    assert list(question.fields)[:3] == ["name", "check", "firstLine"]
    assert question.required == ["name"]
    titled = question.fields["titledSingleSelectEnum"]
    assert choices(titled) == [("hero-1", "Superman"), ("hero-2", "Green Lantern"),
                               ("hero-3", "Wonder Woman")]
    assert choices(question.fields["legacyTitledEnum"])[1] == ("pet-2", "Dogs")
    assert question.fields["integer"]["default"] == 42

    # What the server received, as it echoes it back.
    assert "User provided the requested information" in accepted
    assert "- Name: Ada Lovelace" in accepted and "- Agreed to terms: true" in accepted
    assert "- Email: ada@example.org" in accepted and "- Birthdate: 1815-12-10" in accepted
    assert "- Favorite Integer: 7" in accepted and "- Favorite Number: 3.14" in accepted
    content = raw_result(accepted)["content"]
    assert content == {  # typed values by the schema's types, titles sent as values
        "name": "Ada Lovelace", "check": True, "firstLine": "It was a dark and stormy night.",
        "email": "ada@example.org", "homepage": "https://ada.example.org/",
        "birthdate": "1815-12-10", "integer": 7, "number": 3.14,
        "untitledSingleSelectEnum": "Phoebe", "untitledMultipleSelectEnum": ["Guitar"],
        "titledSingleSelectEnum": "hero-3", "titledMultipleSelectEnum": ["fish-1", "fish-3"],
        "legacyTitledEnum": "pet-2"}
    assert "User declined to provide the requested information" in declined
    assert raw_result(declined) == {"action": "decline"}
    assert "User cancelled the elicitation dialog" in cancelled
    assert raw_result(cancelled) == {"action": "cancel"}


async def test_answers_outside_the_servers_schema_are_refused_before_sending() -> None:
    """The reference server's own schema: an integer over its maximum, a value that is
    not one of the choices, a malformed email are caught with the field named."""
    person = Person("accept")
    mcp = McpManager([config("stdio", None)], login_path=PLAIN_PATH, backoff_s=0.01,
                     elicitor=person)
    try:
        assert await mcp.start_all() == {"everything": True}
        await run(mcp, "trigger-elicitation-request", {})
    finally:
        await mcp.stop_all()
    question = person.asked[0]
    for wrong, says in ((("integer", "500"), "integer: must be at most 100"),
                        (("untitledSingleSelectEnum", "Gunther"), "choose one of Monica"),
                        (("email", "not-an-address"), "email: not a valid email"),
                        (("homepage", "portfolio"), "homepage: not a valid uri"),
                        (("birthdate", "10/12/1815"), "birthdate: not a valid date")):
        with pytest.raises(ValueError, match=says):
            coerce_answer(question, TYPED | dict([wrong]))
    with pytest.raises(ValueError, match="name is required"):
        coerce_answer(question, {k: v for k, v in TYPED.items() if k != "name"})


@pytest.mark.parametrize("action", ["accept", "decline"])
async def test_url_mode_reaches_the_person_and_the_answer_the_server(action: str) -> None:
    person = Person(action)
    mcp = McpManager([config("stdio", None)], login_path=PLAIN_PATH, backoff_s=0.01,
                     elicitor=person)
    try:
        assert await mcp.start_all() == {"everything": True}
        echoed = await run(mcp, "trigger-url-elicitation",
                           {"url": "https://example.org/connect", "message": "Link it"})
    finally:
        await mcp.stop_all()
    assert person.asked[0].url == "https://example.org/connect"
    assert person.asked[0].message == "Link it"
    said = {"accept": "User completed the URL elicitation flow",
            "decline": "User declined to open the URL"}[action]
    assert said in echoed


@pytest.mark.parametrize("action", ["accept", "decline"])
async def test_a_tool_that_needs_an_address_opened_first(action: str) -> None:
    """The server refuses the call until the person opened an address (error -32042,
    URL elicitation required, with the address in its data): the person is asked,
    and once they confirm the call is made again with the same arguments; declined,
    the call fails saying so."""
    person = Person(action, "accept")
    mcp = McpManager([config("stdio", None)], login_path=PLAIN_PATH, backoff_s=0.01,
                     elicitor=person)
    try:
        assert await mcp.start_all() == {"everything": True}
        echoed = await run(mcp, "trigger-url-elicitation", {
            "url": "https://example.org/connect", "errorPath": True})
    finally:
        await mcp.stop_all()
    prerequisite = person.asked[0]
    assert prerequisite.url == "https://modelcontextprotocol.io"
    assert "satisfy the prerequisite" in prerequisite.message
    if action == "accept":  # the call again: now the server asks for its own address
        assert [q.url for q in person.asked] == ["https://modelcontextprotocol.io",
                                                 "https://example.org/connect"]
        assert "User completed the URL elicitation flow" in echoed
    else:
        assert len(person.asked) == 1
        result = json.loads(echoed)
        assert result["status"] == "error"
        said = result["error"]["message"]
        assert "declined" in said and "browser-based authorization" in said
