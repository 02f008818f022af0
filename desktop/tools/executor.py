"""Run tool calls: look up, validate, execute with a timeout, encode the result.

:class:`ToolExecutor` implements :class:`desktop.core.tooling.ToolRunner`. It
never raises for a tool failure: unknown tools, invalid arguments, tool errors,
crashes and timeouts all become error results the model can read. Only
cancellation of the run itself propagates (``asyncio.CancelledError``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from desktop.core.errors import ToolError
from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.core.provider import ToolSpec
from desktop.tools.errors import error_fields
from desktop.tools.registry import Tool, ToolContext, ToolRegistry
from desktop.tools.results import DEFAULT_MAX_CHARS, error_content, success_content
from desktop.tools.validation import validate_arguments
from desktop.tools.workspace import Workspace

log = logging.getLogger(__name__)

# Room left in the result budget for the envelope and per-item metadata.
_ENVELOPE_RESERVE = 2_000


class ToolExecutor:
    """Runs the enabled tools of a registry against one workspace (or none).

    ``enabled=None`` enables every registered tool; names in ``enabled`` that
    are not registered are ignored. ``max_result_chars`` caps the JSON text
    of every result.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        workspace: Workspace | None,
        enabled: set[str] | None = None,
        timeout_s: float = 60.0,
        *,
        max_result_chars: int = DEFAULT_MAX_CHARS,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        self.registry = registry
        self.workspace = workspace
        self.enabled = None if enabled is None else set(enabled)
        self.timeout_s = timeout_s
        self.max_result_chars = max_result_chars
        if self.enabled is not None:
            unknown = sorted(self.enabled - set(registry.names()))
            if unknown:
                log.warning("enabled tools not in the registry, ignored: %s", ", ".join(unknown))

    def enabled_names(self) -> list[str]:
        """The names of the tools the model may call, in registry order."""
        return [n for n in self.registry.names() if self.enabled is None or n in self.enabled]

    def specs(self) -> list[ToolSpec]:
        return self.registry.specs(self.enabled)

    def _tool(self, name: str) -> Tool | None:
        if self.enabled is not None and name not in self.enabled:
            return None
        return self.registry.get(name)

    async def run(self, call: ToolCallPart) -> ToolResultPart:
        started = time.monotonic()
        tool = self._tool(call.name)
        if tool is None:
            available = self.enabled_names()
            listing = ", ".join(available) if available else "none"
            return self._error(
                call,
                started,
                {
                    "code": "unknown_tool",
                    "message": f"There is no tool named '{call.name}'. Available tools: {listing}.",
                    "available_tools": available,
                },
            )
        try:
            args = validate_arguments(call.arguments, tool.validator, tool_name=tool.name)
        except ToolError as exc:
            return self._error(call, started, error_fields(exc))

        ctx = ToolContext(
            workspace=self.workspace,
            call_id=call.id,
            result_budget=max(self.max_result_chars - _ENVELOPE_RESERVE, 1_000),
        )
        try:
            result = await self._invoke(tool, args, ctx)
        except ToolError as exc:
            return self._error(call, started, error_fields(exc))
        finally:
            ctx.cancel_event.set()  # stop any worker thread still running for this call
        try:
            content = success_content(result, self.max_result_chars)
        except (TypeError, ValueError) as exc:
            log.error("tool %s returned a result that is not JSON: %s", tool.name, exc)
            return self._error(
                call,
                started,
                {"code": "internal_error", "message": f"The tool returned a bad result: {exc}"},
            )
        return ToolResultPart(
            tool_call_id=call.id,
            name=call.name,
            content=content,
            is_error=False,
            status="succeeded",
            duration_s=time.monotonic() - started,
        )

    async def _invoke(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Any:
        """Await the handler under the timeout; every failure becomes a ToolError."""
        timer = asyncio.timeout(self.timeout_s)
        try:
            async with timer:
                return await tool.handler(args, ctx)
        except ToolError:
            raise
        except TimeoutError as exc:
            if not timer.expired():
                log.exception("tool %s raised TimeoutError", tool.name)
                raise ToolError(
                    f"The tool failed: {_describe(exc, 'timed out')}", code="internal_error"
                ) from exc
            raise ToolError(
                f"The tool did not finish within {self.timeout_s:g} seconds and was stopped.",
                code="timeout",
            ) from None
        except Exception as exc:
            log.exception("tool %s failed", tool.name)
            raise ToolError(
                f"The tool failed with an unexpected error: {_describe(exc)}",
                code="internal_error",
            ) from exc

    def _error(self, call: ToolCallPart, started: float, error: dict[str, Any]) -> ToolResultPart:
        try:
            content = error_content(error, self.max_result_chars)
        except (TypeError, ValueError):  # extra detail that JSON cannot hold: drop it
            basic = {"code": str(error.get("code")), "message": str(error.get("message"))}
            content = error_content(basic, self.max_result_chars)
        return ToolResultPart(
            tool_call_id=call.id,
            name=call.name,
            content=content,
            is_error=True,
            status="failed",
            duration_s=time.monotonic() - started,
        )


def _describe(exc: BaseException, default: str = "") -> str:
    text = str(exc) or default
    name = type(exc).__name__
    return f"{name}: {text}" if text else name
