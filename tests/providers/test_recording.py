"""The request inspector's recording on the streaming path: a loopback server, a real
provider and the real ``inspector.sqlite`` (what was sent and received, byte for byte;
no secret anywhere in the file, the JSON or the curl command; retries; timings)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.chat.inspection import curl_command
from desktop.core.events import TextDelta
from desktop.core.exchange import ExchangeRecording
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest, Provider, RequestOrigin
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.recording import recorded as with_recording
from desktop.providers.retry import RetryPolicy
from desktop.storage.inspector_records import ExchangeRecord
from desktop.storage.inspector_writer import InspectorWriter
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream

KEY = "sk-inspector-secret-0123456789"
HEADER_TOKEN = "hdr-token-abcdef123456"
MCP_TOKEN = "mcp-header-token-987654"
URL_KEY = "AIzaSyInspectorQueryKey000000000000"
URL_PASSWORD = "url-password-55555"


async def _no_wait(_: float) -> None:
    return None


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[InspectorWriter]:
    made = InspectorWriter(tmp_path, lambda: (14, 200), lambda: [MCP_TOKEN])
    yield made
    made.close()


def provider_for(url: str, writer: InspectorWriter, **kwargs: object) -> Provider:
    return with_recording(OpenAIChatProvider(url, KEY, retry=RetryPolicy(sleep=_no_wait,
                                                                   random=lambda: 0.0),
                                       **kwargs),  # type: ignore[arg-type]
                    ExchangeRecording(writer, "openai", "prov_x"))


async def run(provider: Provider, text: str = "hi",
              origin: RequestOrigin | None = None) -> list[object]:
    request = ChatRequest(model="gpt-test", messages=[Message.user(text)],
                          origin=origin or RequestOrigin())
    events = [event async for event in provider.stream(request)]
    await provider.aclose()
    return events


def recorded(writer: InspectorWriter) -> list[ExchangeRecord]:
    writer.flush()
    found = writer.store._records("SELECT * FROM exchanges ORDER BY started_at", ())
    assert found, "nothing was recorded"
    return found


async def test_records_the_bytes_the_server_received_and_sent(
        server: FakeOpenAIServer, writer: InspectorWriter) -> None:
    scripted = server.enqueue_text("Hello, inspector! " * 20, chunk_size=4)
    events = await run(provider_for(server.base_url, writer),
                       origin=RequestOrigin("ses_1", "msg_1"))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).startswith("Hello")
    [record] = recorded(writer)
    received = server.chat_requests[-1]
    assert record.request_body == received.body
    assert record.method == received.method == "POST"
    assert record.url == f"{server.base_url}/chat/completions"
    assert b"".join(c.data for c in record.chunks) == b"".join(scripted.chunks)
    assert record.status == 200
    assert ("Content-Type", "text/event-stream") in record.response_headers
    sent = {k.lower(): v for k, v in record.request_headers}
    assert sent["authorization"] == "Bearer «redacted»"
    assert received.headers["authorization"] == f"Bearer {KEY}"
    assert (record.session_id, record.message_id) == ("ses_1", "msg_1")
    times = [c.at_s for c in record.chunks]
    assert times == sorted(times) and times[0] >= (record.headers_s or 0)
    assert record.headers_s is not None and record.first_token_s is not None
    assert record.last_token_s is not None and record.last_token_s >= record.first_token_s
    assert record.answer_text.startswith("Hello, inspector!")
    assert record.finished and record.error is None
    assert record.chat_request is not None and record.chat_request["model"] == "gpt-test"


async def test_no_secret_in_the_file_the_json_or_curl(
        server: FakeOpenAIServer, writer: InspectorWriter, tmp_path: Path) -> None:
    # The key and the MCP token come back in the stream too (an echoing server).
    echo = f"your key {KEY} and token {MCP_TOKEN} and {HEADER_TOKEN}"
    server.enqueue_text(echo, chunk_size=200)
    base = server.base_url.replace("http://", f"http://user:{URL_PASSWORD}@")
    provider = provider_for(f"{base}?key={URL_KEY}", writer,
                            headers={"X-Custom-Token": HEADER_TOKEN, "X-Plain": "visible"})
    await run(provider, f"please keep {MCP_TOKEN} secret")
    [record] = recorded(writer)
    writer.close()
    secrets = (KEY, HEADER_TOKEN, MCP_TOKEN, URL_KEY, URL_PASSWORD)
    files = [p for p in tmp_path.iterdir() if p.name.startswith("inspector.sqlite")]
    assert files
    for path in files:
        data = path.read_bytes()
        for secret in secrets:
            assert secret.encode() not in data, (secret, path.name)
    exported = json.dumps(record.to_json(), ensure_ascii=False)
    curl = curl_command(record)
    for secret in secrets:
        assert secret not in exported and secret not in curl
    assert "«redacted»" in record.url and "user:«redacted»@" in record.url
    # What was sent: httpx turns the URL's user and password into Basic auth, which
    # replaces the key's Bearer header (the wire tap records the request as sent).
    received = server.chat_requests[-1].headers
    assert received["authorization"].startswith("Basic ")
    assert ("Authorization", "Basic «redacted»") in record.request_headers
    assert '"Authorization: Basic ${OPENAI_API_KEY}"' in curl
    assert "${X_CUSTOM_TOKEN}" in curl and "X-Plain: visible" in curl
    assert "your key «redacted»" in record.answer_text


async def test_retries_are_recorded_with_their_reasons(
        server: FakeOpenAIServer, writer: InspectorWriter) -> None:
    server.enqueue(ScriptedResponse.error(429, "slow down", headers={"Retry-After": "0"}),
                   ScriptedResponse.error(503, "overloaded"))
    server.enqueue_text("finally")
    await run(provider_for(server.base_url, writer))
    [record] = recorded(writer)
    assert [(r["attempt"], r["reason"]) for r in record.retries] == [(1, "HTTP 429"),
                                                                      (2, "HTTP 503")]
    assert record.status == 200 and record.answer_text == "finally"
    assert all(r["at_s"] >= 0 for r in record.retries)


async def test_a_failed_request_is_recorded_with_its_error(
        server: FakeOpenAIServer, writer: InspectorWriter) -> None:
    server.enqueue_error(400, "bad model")
    await run(provider_for(server.base_url, writer))
    [record] = recorded(writer)
    assert record.status == 400 and record.error and "bad model" in record.error
    assert b"bad model" in b"".join(c.data for c in record.chunks)


async def test_nothing_is_recorded_without_a_recording(server: FakeOpenAIServer,
                                                       tmp_path: Path) -> None:
    server.enqueue_text("plain")
    provider = OpenAIChatProvider(server.base_url, KEY)
    await run(provider)
    assert not (tmp_path / "inspector.sqlite").exists()


async def test_a_compressed_stream_is_recorded_as_the_text_the_server_wrote(
        server: FakeOpenAIServer, writer: InspectorWriter) -> None:
    plain = text_stream("Squeezed but readable.", 4)
    packer = zlib.compressobj(wbits=16 + zlib.MAX_WBITS)  # gzip, flushed per event
    packed = [packer.compress(c) + packer.flush(zlib.Z_SYNC_FLUSH) for c in plain]
    packed[-1] += packer.flush()
    server.enqueue(ScriptedResponse(chunks=packed, headers={
        "Content-Type": "text/event-stream", "Content-Encoding": "gzip"}))
    events = await run(provider_for(server.base_url, writer))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == \
        "Squeezed but readable."
    [record] = recorded(writer)
    assert b"".join(c.data for c in record.chunks) == b"".join(plain)
    assert record.answer_text == "Squeezed but readable."
