"""A provider that replays scripted event lists, one per request (for loop tests)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from desktop.core.events import (
    EndEvent,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallStarted,
)
from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.core.provider import ChatRequest, ModelInfo, ToolSpec


class ScriptedProvider:
    name = "scripted"
    supports_tools = True
    supports_reasoning = True

    def __init__(self, scripts: list[list[StreamEvent]], *, hang_after: int | None = None) -> None:
        self.scripts = list(scripts)
        self.requests: list[ChatRequest] = []
        self.hang_after = hang_after
        self.streaming = asyncio.Event()

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        script = self.scripts.pop(0) if self.scripts else [TextDelta("(no script)"), EndEvent()]
        for i, event in enumerate(script):
            if self.hang_after is not None and i == self.hang_after:
                self.streaming.set()
                await asyncio.Event().wait()
            yield event
            await asyncio.sleep(0)

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(id="scripted-1")]

    async def aclose(self) -> None:
        return None


def text_reply(text: str) -> list[StreamEvent]:
    return [TextDelta(text[: len(text) // 2]), TextDelta(text[len(text) // 2 :]), EndEvent()]


def tool_reply(*calls: tuple[str, str, str], text: str = "") -> list[StreamEvent]:
    events: list[StreamEvent] = [TextDelta(text)] if text else []
    for i, (call_id, name, args) in enumerate(calls):
        events.append(ToolCallStarted(index=i, id=call_id, name=name))
        events.append(ToolCallComplete(index=i, id=call_id, name=name, arguments=args))
    events.append(EndEvent("tool_calls"))
    return events


class EchoTools:
    """Tools for loop tests: ``echo`` returns its input; ``block`` waits forever."""

    def __init__(self) -> None:
        self.calls: list[ToolCallPart] = []
        self.blocking = asyncio.Event()

    def specs(self) -> list[ToolSpec]:
        return [ToolSpec("echo", "Echo the input", {"type": "object"}),
                ToolSpec("block", "Never returns", {"type": "object"})]

    async def run(self, call: ToolCallPart) -> ToolResultPart:
        self.calls.append(call)
        if call.name == "block":
            self.blocking.set()
            await asyncio.Event().wait()
        if call.arguments.startswith("{bad"):
            return ToolResultPart(tool_call_id=call.id, name=call.name, is_error=True,
                                  status="failed", content='{"status":"error"}')
        return ToolResultPart(tool_call_id=call.id, name=call.name, content=call.arguments)
