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

from desktop.core.events import (
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallStarted,
)
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


def _openai_stream_error(message: str) -> bytes:
    return _data({"error": {"message": message, "code": "server_error"}})


def _responses_stream_error(message: str) -> bytes:
    error = {"type": "error", "code": "server_error", "message": message, "param": None,
             "sequence_number": 9}
    return _data(error, "error")


def _anthropic_stream_error(message: str) -> bytes:
    return anthropic_event({"type": "error", "error": {"type": "api_error", "message": message}})


def _gemini_stream_error(message: str) -> bytes:
    return _data({"error": {"code": 500, "message": message, "status": "INTERNAL"}})


def _ollama_stream_error(message: str) -> bytes:
    return ndjson_bytes([{"error": message}])


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
        key = kwargs.pop("api_key", KEY)
        return self.adapter(self.base_url(server), key, name="Fake", **kwargs)

    def offline(self, url: str = "http://test", **kwargs: Any) -> HttpProvider:
        """The adapter at ``url`` (a mock transport, or nothing listening)."""
        return self.adapter(url, kwargs.pop("api_key", KEY), name="Fake", **kwargs)

    @property
    def rich_transcript(self) -> Path:
        return next(p for p in self.transcripts if p.name == self.rich)

    def response(self, chunks: list[bytes], **kwargs: Any) -> ScriptedResponse:
        """A 200 stream of ``chunks`` with this API's content type."""
        headers = {"Content-Type": self.content_type}
        return ScriptedResponse(headers=headers, chunks=chunks, **kwargs)

    def enqueue(self, server: FakeOpenAIServer, *responses: ScriptedResponse) -> None:
        server.enqueue(*responses, path=self.path)

    def requests(self, server: FakeOpenAIServer) -> int:
        return sum(1 for r in server.requests if r.path.split("?")[0] == self.path)


def index_of(chunks: list[bytes], needle: bytes) -> int:
    """The first chunk that holds ``needle``."""
    return next(i for i, chunk in enumerate(chunks) if needle in chunk)


def normalized(events: list[StreamEvent]) -> list[StreamEvent]:
    """``events`` with made-up tool call ids (``call_…``) replaced by their order of
    appearance and each run of text (or reasoning) deltas joined (a stream read on
    its own thread hands over what arrived together as one delta), so two runs of
    one transcript compare equal."""
    names: dict[str, str] = {}
    out: list[StreamEvent] = []
    for event in events:
        last = out[-1] if out else None
        if type(event) in (TextDelta, ReasoningDelta) and type(last) is type(event):
            out[-1] = type(event)(last.text + event.text)  # type: ignore[union-attr]
        elif isinstance(event, ToolCallStarted):
            alias = names.setdefault(event.id, f"id{len(names)}")
            out.append(ToolCallStarted(event.index, alias, event.name))
        elif isinstance(event, ToolCallComplete):
            alias = names.setdefault(event.id, f"id{len(names)}")
            out.append(ToolCallComplete(event.index, alias, event.name, event.arguments,
                                        event.provider_data))
        else:
            out.append(event)
    return out


SSE_EOLS = (b"\n", b"\r\n", b"\r")

CASES = [
    ApiCase(
        id="openai_chat", server=FakeOpenAIServer, adapter=OpenAIChatProvider,
        base_url=lambda s: s.base_url, path=CHAT_PATH, model="gpt-test",
        transcripts=tuple(sorted(DATA.glob("*.sse"))), rich="parallel_tool_calls.sse",
        text=text_stream, error_reply=_openai_error, error_code="invalid_request_error",
        stream_error=_openai_stream_error, stream_error_code="server_error",
        malformed=b"data: {not json\n\n", eols=SSE_EOLS,
    ),
    ApiCase(
        id="openai_responses", server=FakeResponsesServer, adapter=OpenAIResponsesProvider,
        base_url=lambda s: s.base_url, path=RESPONSES_PATH, model="gpt-test",
        transcripts=tuple(sorted((DATA / "responses").glob("*.sse"))),
        rich="reasoning_tool_call.sse", text=text_response, error_reply=_openai_error,
        error_code="invalid_request_error", stream_error=_responses_stream_error,
        stream_error_code="server_error", malformed=b"data: {not json\n\n", eols=SSE_EOLS,
    ),
    ApiCase(
        id="anthropic", server=FakeAnthropicServer, adapter=AnthropicProvider,
        base_url=lambda s: s.url, path=MESSAGES_PATH, model="claude-sonnet-4-5",
        transcripts=tuple(sorted((DATA / "anthropic").glob("*.sse"))),
        rich="anthropic_thinking_tool_use.sse", text=text_message, error_reply=anthropic_error,
        error_code="invalid_request_error", stream_error=_anthropic_stream_error,
        stream_error_code="api_error",
        malformed=b"event: content_block_delta\ndata: {not json\n\n", eols=SSE_EOLS,
    ),
    ApiCase(
        id="gemini", server=FakeGeminiServer, adapter=GeminiProvider,
        base_url=lambda s: s.base_url, path=gemini_path("gemini-test"), model="gemini-test",
        transcripts=tuple(sorted((DATA / "gemini").glob("*.sse"))),
        rich="gemini_call_signature.sse", text=gemini_text_stream, error_reply=gemini_error,
        error_code="INVALID_ARGUMENT", stream_error=_gemini_stream_error,
        stream_error_code="INTERNAL", malformed=b"data: {not json\r\n\r\n", eols=SSE_EOLS,
    ),
    ApiCase(
        id="ollama", server=FakeOllamaServer, adapter=OllamaProvider,
        base_url=lambda s: s.base_url, path=OLLAMA_PATH, model="llama3.2",
        transcripts=tuple(sorted(DATA.glob("ollama_*.ndjson"))), rich="ollama_thinking.ndjson",
        text=_ollama_text, error_reply=ollama_error, error_code=None,
        stream_error=_ollama_stream_error, stream_error_code=None, malformed=b"{not json\n",
        eols=(b"\n", b"\r\n"), content_type="application/x-ndjson",
    ),
]
