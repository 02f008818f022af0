"""What the orchestrator needs from the tool layer (implemented in desktop.tools)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.core.provider import ToolSpec


@runtime_checkable
class ToolRunner(Protocol):
    def specs(self) -> list[ToolSpec]:
        """The enabled tools, as sent to the model."""
        ...

    async def run(self, call: ToolCallPart) -> ToolResultPart:
        """Run one call. Never raises for tool failures: they become error results.

        Raises ``asyncio.CancelledError`` only when the run itself is cancelled.
        """
        ...


class NoTools:
    """A runner with no tools (a chat without tools, or a model that cannot call them)."""

    def specs(self) -> list[ToolSpec]:
        return []

    async def run(self, call: ToolCallPart) -> ToolResultPart:
        return ToolResultPart(
            tool_call_id=call.id,
            name=call.name,
            content=f'{{"status": "error", "error": {{"code": "unknown_tool", '
            f'"message": "No tools are enabled; {call.name!s} is unavailable."}}}}',
            is_error=True,
            status="failed",
        )
