"""The five wire APIs described alike, for the contract suite that runs over all of them.

An :class:`ApiCase` knows its fake server, its adapter, where the stream is posted,
its recorded transcripts and how to write a text answer, an error reply and an
in-stream error in its dialect. Everything else in the contract suite is the same
for every API (see ``tests/providers/test_stream_contract.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.events import StreamEvent, ToolCallComplete, ToolCallStarted
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.providers.anthropic import AnthropicProvider
from desktop.providers.gemini import GeminiProvider
from desktop.providers.http_base import HttpProvider
from desktop.providers.ollama import OllamaProvider
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.openai_responses import OpenAIResponsesProvider
from tests.support.anthropic_server import (
    MESSAGES_PATH,
    FakeAnthropicServer,
    anthropic_error,
    anthropic_event,
    text_message,
)
from tests.support.gemini_server import FakeGeminiServer, gemini_error, gemini_text_stream
from tests.support.gemini_server import stream_path as gemini_path
from tests.support.ollama_server import (
    CHAT_PATH as OLLAMA_PATH,
)
from tests.support.ollama_server import (
    FakeOllamaServer,
    chat_line,
    done_line,
    ndjson_bytes,
    ollama_error,
)
from tests.support.openai_server import CHAT_PATH, FakeOpenAIServer, ScriptedResponse, text_stream
from tests.support.responses_server import RESPONSES_PATH, FakeResponsesServer, text_response

__all__ = ["CASES", "KEY", "ApiCase", "index_of", "normalized"]

DATA = Path(__file__).parents[1] / "providers" / "data"
KEY = "sk-test-abcdefghijklmnop0123456789"


def _openai_error(status: int, message: str) -> ScriptedResponse:
    return ScriptedResponse.error(status, message, type="invalid_request_error")


def _data(obj: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(obj, separators=(',', ':'))}\n\n".encode()


def _ollama_text(text: str, size: int) -> list[bytes]:
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    return [ndjson_bytes([chat_line(p)]) for p in pieces] + [ndjson_bytes([done_line()])]


@dataclass(frozen=True)
class ApiCase:
    id: str
    server: Callable[[], FakeOpenAIServer]
    adapter: type[HttpProvider]
    base_url: Callable[[FakeOpenAIServer], str]
    path: str  # where the stream is posted (no query)
    model: str
    transcripts: tuple[Path, ...]
    rich: str  # the transcript used for line endings: reasoning and tool calls
    text: Callable[[str, int], list[bytes]]  # a whole text answer in pieces of n chars
    error_reply: Callable[[int, str], ScriptedResponse]  # an error status, JSON body
    error_code: str | None  # the code that reply carries
    stream_error: Callable[[str], bytes]  # an error sent inside the stream
    stream_error_code: str | None
    malformed: bytes  # an item that cannot be parsed
    eols: tuple[bytes, ...]  # line endings the wire format allows
    content_type: str = "text/event-stream"

    @property
    def request(self) -> ChatRequest:
        return ChatRequest(model=self.model, messages=[Message.user("Hi")])

    def make(self, server: FakeOpenAIServer, **kwargs: Any) -> HttpProvider:
        return self.adapter(self.base_url(server), kwargs.pop("api_key", KEY), name="Fake",
                            **kwargs)  # fmt: skip

    def offline(self, url: str = "http://test", **kwargs: Any) -> HttpProvider:
        """The adapter at ``url`` (a mock transport, or nothing listening)."""
        return self.adapter(url, kwargs.pop("api_key", KEY), name="Fake", **kwargs)

    @property
    def rich_transcript(self) -> Path:
        return next(p for p in self.transcripts if p.name == self.rich)

    def response(self, chunks: list[bytes], **kwargs: Any) -> ScriptedResponse:
        """A 200 stream of ``chunks`` with this API's content type."""
        return ScriptedResponse(headers={"Content-Type": self.content_type}, chunks=chunks,
                                **kwargs)  # fmt: skip

    def enqueue(self, server: FakeOpenAIServer, *responses: ScriptedResponse) -> None:
        server.enqueue(*responses, path=self.path)

    def requests(self, server: FakeOpenAIServer) -> int:
        return sum(1 for r in server.requests if r.path.split("?")[0] == self.path)


def index_of(chunks: list[bytes], needle: bytes) -> int:
    """The first chunk that holds ``needle``."""
    return next(i for i, chunk in enumerate(chunks) if needle in chunk)


def normalized(events: list[StreamEvent]) -> list[StreamEvent]:
    """``events`` with made-up tool call ids (``call_…``) replaced by their order of
    appearance, so two runs of one transcript compare equal."""
    names: dict[str, str] = {}
    out: list[StreamEvent] = []
    for event in events:
        if isinstance(event, ToolCallStarted | ToolCallComplete):
            alias = names.setdefault(event.id, f"id{len(names)}")
            if isinstance(event, ToolCallStarted):
                event = ToolCallStarted(event.index, alias, event.name)
            else:
                event = ToolCallComplete(event.index, alias, event.name, event.arguments,
                                         event.provider_data)  # fmt: skip
        out.append(event)
    return out


SSE_EOLS = (b"\n", b"\r\n", b"\r")

CASES = [
    ApiCase(
        "openai_chat", FakeOpenAIServer, OpenAIChatProvider, lambda s: s.base_url, CHAT_PATH,
        "gpt-test", tuple(sorted(DATA.glob("*.sse"))), "parallel_tool_calls.sse",
        lambda text, n: text_stream(text, n), _openai_error, "invalid_request_error",
        lambda m: _data({"error": {"message": m, "code": "server_error"}}), "server_error",
        b"data: {not json\n\n", SSE_EOLS,
    ),
    ApiCase(
        "openai_responses", FakeResponsesServer, OpenAIResponsesProvider,
        lambda s: s.base_url, RESPONSES_PATH, "gpt-test",
        tuple(sorted((DATA / "responses").glob("*.sse"))), "reasoning_tool_call.sse",
        lambda text, n: text_response(text, n), _openai_error, "invalid_request_error",
        lambda m: _data({"type": "error", "code": "server_error", "message": m, "param": None,
                         "sequence_number": 9}, "error"),  # fmt: skip
        "server_error", b"data: {not json\n\n", SSE_EOLS,
    ),
    ApiCase(
        "anthropic", FakeAnthropicServer, AnthropicProvider, lambda s: s.url, MESSAGES_PATH,
        "claude-sonnet-4-5", tuple(sorted((DATA / "anthropic").glob("*.sse"))),
        "anthropic_thinking_tool_use.sse", lambda text, n: text_message(text, n),
        lambda status, m: anthropic_error(status, m), "invalid_request_error",
        lambda m: anthropic_event({"type": "error", "error": {"type": "api_error",
                                                              "message": m}}),  # fmt: skip
        "api_error", b"event: content_block_delta\ndata: {not json\n\n", SSE_EOLS,
    ),
    ApiCase(
        "gemini", FakeGeminiServer, GeminiProvider, lambda s: s.base_url,
        gemini_path("gemini-test"), "gemini-test",
        tuple(sorted((DATA / "gemini").glob("*.sse"))), "gemini_call_signature.sse",
        lambda text, n: gemini_text_stream(text, n), lambda status, m: gemini_error(status, m),
        "INVALID_ARGUMENT",
        lambda m: _data({"error": {"code": 500, "message": m, "status": "INTERNAL"}}),
        "INTERNAL", b"data: {not json\r\n\r\n", SSE_EOLS,
    ),
    ApiCase(
        "ollama", FakeOllamaServer, OllamaProvider, lambda s: s.base_url, OLLAMA_PATH,
        "llama3.2", tuple(sorted(DATA.glob("ollama_*.ndjson"))), "ollama_thinking.ndjson",
        _ollama_text, lambda status, m: ollama_error(status, m), None,
        lambda m: ndjson_bytes([{"error": m}]), None, b"{not json\n", (b"\n", b"\r\n"),
        "application/x-ndjson",
    ),
]
