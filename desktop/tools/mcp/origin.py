"""Which chat MCP calls are made for (no SDK import: every turn sets it)."""

from __future__ import annotations

from contextvars import ContextVar

#: The chat (session id) on whose behalf MCP calls are made in this context: a
#: server's sampling or elicitation request during the call belongs to that chat.
request_origin: ContextVar[str | None] = ContextVar("mcp_request_origin", default=None)
