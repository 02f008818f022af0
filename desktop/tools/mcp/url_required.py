"""A tool call the server runs only after the person opened an address: the error
-32042 (URL elicitation required, protocol 2025-11-25) lists the addresses as URL-mode
elicitations. Each is put to the person through the elicitor (the same question as a
URL-mode ``elicitation/create``); when every one is confirmed the call is made once
more with the same arguments, as the spec says; declined, the call fails saying so."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import mcp_types as mt
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from pydantic import ValidationError

from desktop.core.errors import ToolError
from desktop.tools.mcp.server_requests import ElicitationRequest, Elicitor

T = TypeVar("T")


async def opened_first(server: str, exc: MCPError, elicitor: Elicitor,
                       origin: str | None) -> bool:
    """Whether the person confirmed every address ``exc`` asks to be opened."""
    try:
        required = UrlElicitationRequiredError.from_error(exc.error).elicitations
    except (ValueError, ValidationError, TypeError):
        return False
    for params in required:
        answer = await elicitor(ElicitationRequest(server, params.message, url=params.url,
                                                   origin=origin))
        if answer.action != "accept":
            return False
    return bool(required)


async def with_url_prerequisites(call: Callable[[], Awaitable[T]], server: str,
                                 elicitor: Elicitor | None, origin: str | None) -> T:
    """``await call()``; on -32042 the addresses are put to the person, then once more."""
    try:
        return await call()
    except MCPError as exc:
        if exc.code != mt.URL_ELICITATION_REQUIRED or elicitor is None:
            raise
        if not await opened_first(server, exc, elicitor, origin):
            raise ToolError(
                f"The MCP server '{server}' needs an address opened first ({exc.message}); "
                "that was declined.", code="mcp_error") from None
    return await call()
