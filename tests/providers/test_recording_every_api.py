"""Every wire API is recorded by the one streaming template: the body each loopback
server received, the bytes it sent, the key header redacted, the error of a failed
request (the five APIs of tests/support/provider_cases)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.events import TextDelta
from desktop.core.exchange import ExchangeRecording
from desktop.providers.recording import recorded
from desktop.providers.retry import RetryPolicy
from desktop.storage.inspector_writer import InspectorWriter
from tests.support.openai_server import FakeOpenAIServer
from tests.support.provider_cases import CASES, KEY, ApiCase


@pytest.fixture(params=CASES, ids=lambda case: case.id)
def case(request: pytest.FixtureRequest) -> ApiCase:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def server(case: ApiCase) -> Iterator[FakeOpenAIServer]:
    with case.server() as running:
        yield running


async def test_each_api_is_recorded_byte_for_byte(case: ApiCase, server: FakeOpenAIServer,
                                                  tmp_path: Path) -> None:
    chunks = case.text("Recorded on every API.", 5)
    case.enqueue(server, case.response(chunks), case.error_reply(400, "bad request"))
    writer = InspectorWriter(tmp_path, lambda: (14, 200))
    provider = recorded(case.make(server, retry=RetryPolicy.disabled()),
                        ExchangeRecording(writer, case.id, "p1"))
    texts = [e.text async for e in provider.stream(case.request) if isinstance(e, TextDelta)]
    assert "".join(texts) == "Recorded on every API."
    _ = [e async for e in provider.stream(case.request)]  # the 400
    await provider.aclose()
    writer.flush()
    done, failed = writer.store._records("SELECT * FROM exchanges ORDER BY started_at", ())
    writer.close()
    received = [r for r in server.requests if r.path.split("?")[0] == case.path]
    assert done.request_body == received[0].body
    assert b"".join(c.data for c in done.chunks) == b"".join(chunks)
    assert done.status == 200 and done.first_token_s is not None
    assert done.answer_text == "Recorded on every API." and done.kind == case.id
    headers = dict(done.request_headers)
    assert KEY not in str(done.request_headers) and "«redacted»" in str(headers.values())
    assert failed.status == 400 and failed.error and "bad request" in failed.error
    for path in tmp_path.iterdir():
        if path.name.startswith("inspector.sqlite"):
            assert KEY.encode() not in path.read_bytes()
