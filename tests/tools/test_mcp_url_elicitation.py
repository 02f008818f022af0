"""URL-mode elicitation over the wire: a real SDK server asks the user to open a page;
the client hands the address (not a form) to the elicitor and the server hears the
answer. In the 2025 protocol era (a standalone ``elicitation/create`` mid-call): the
SDK's server framework has no URL-mode request for 2026-07-28 ``input_required`` rounds
(its ``Resolve`` only elicits forms), so that era is not tried here."""

from __future__ import annotations

import sys

import pytest

from desktop.tools.mcp.server_requests import ElicitationAnswer, ElicitationRequest
from tests.tools.mcp_servers import HERE, feature_config, feature_manager

LINKER = str(HERE / "mcp_url_elicitation_server.py")


@pytest.mark.parametrize("action", ["accept", "decline"])
async def test_url_mode_elicitation_reaches_the_elicitor_and_the_answer_the_server(
        action: str) -> None:
    asked: list[ElicitationRequest] = []

    async def elicitor(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer(action)  # type: ignore[arg-type]

    mcp = feature_manager(feature_config("linker", args=[LINKER], command=sys.executable,
                                         protocol="legacy"), elicitor=elicitor)
    try:
        assert await mcp.start_all() == {"linker": True}
        result = await mcp.connections["linker"].call_tool("connect", {}, 30)
        assert result.content[0].text == f"connect: {action}"  # type: ignore[union-attr]
    finally:
        await mcp.stop_all()
    [request] = asked
    assert request.server == "linker" and request.message == "Connect your calendar account"
    assert request.url == "https://calendar.example/connect?state=42"
    assert request.fields == {}
