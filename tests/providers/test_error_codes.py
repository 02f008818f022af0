"""Every provider failure gets a code from one closed set and its params (the provider,
the status, the model, the server's own words kept verbatim, the wait it asked for),
beside the English one-liner the CLI prints: over a real loopback server."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.error_codes import PROVIDER_CODES, ErrorInfo, provider_failure
from desktop.core.errors import ProviderError
from desktop.core.events import ErrorEvent
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.retry import RetryPolicy
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, unused_port
from tests.support.sse_builders import text_stream

KEY = "sk-error-codes-test-0123456789"
REQUEST = ChatRequest(model="gpt-test", messages=[Message.user("hi")])


def make(server: FakeOpenAIServer | None = None, url: str = "") -> OpenAIChatProvider:
    return OpenAIChatProvider(server.base_url if server else url, KEY, name="Fake",
                              retry=RetryPolicy.disabled())


async def failure(provider: OpenAIChatProvider) -> ErrorEvent:
    async with provider:
        events = [event async for event in provider.stream(REQUEST)]
    last = events[-1]
    assert isinstance(last, ErrorEvent) and last.info is not None
    assert last.info.code in PROVIDER_CODES
    return last


@pytest.mark.parametrize(("response", "code", "params"), [
    (ScriptedResponse.error(401, f"Incorrect API key provided: {KEY}", code="invalid_api_key"),
     "auth_failed", {"status": 401, "detail": "Incorrect API key provided: ***"}),
    (ScriptedResponse.error(403, "not allowed"), "forbidden", {"status": 403}),
    (ScriptedResponse.error(404, "The model `gpt-test` does not exist", code="model_not_found"),
     "model_not_found", {"status": 404, "model": "gpt-test"}),
    (ScriptedResponse.error(429, "slow down", headers={"Retry-After": "7"}),
     "rate_limited", {"status": 429, "retry_after": 7, "detail": "slow down"}),
    (ScriptedResponse.error(429, "You exceeded your current quota", code="insufficient_quota"),
     "quota", {"status": 429}),
    (ScriptedResponse.error(400, "This model's maximum context length is 8192 tokens",
                            code="context_length_exceeded"), "context_too_long", {}),
    (ScriptedResponse.error(400, "bad field"), "bad_request", {"detail": "bad field"}),
    (ScriptedResponse.error(500, "boom", type="server_error"), "server_error",
     {"status": 500, "detail": "boom"}),
    (ScriptedResponse.text(200, "<html><title>Portal</title>log in</html>"), "bad_response", {}),
    (ScriptedResponse(chunks=text_stream("Half an answer", done=False)[:3], cut=True),
     "stream_dropped", {}),
])
async def test_a_failed_answer_has_a_code_and_params(
    openai_server: FakeOpenAIServer, response: ScriptedResponse, code: str,
    params: dict[str, Any],
) -> None:
    openai_server.enqueue(response)
    event = await failure(make(openai_server))
    assert event.info is not None
    assert event.info.code == code
    assert event.info.params["provider"] == "Fake"
    assert params.items() <= dict(event.info.params).items()
    assert event.message.startswith("Fake") and KEY not in event.message  # (English, for logs)
    assert KEY not in str(event.info.params)


async def test_an_unreachable_server_says_where() -> None:
    url = f"http://127.0.0.1:{unused_port()}/v1"
    event = await failure(make(url=url))
    assert event.info == ErrorInfo("unreachable", {"provider": "Fake", "url": url})
    assert "could not connect" in event.message


async def test_listing_models_raises_an_error_with_the_same_code(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.enqueue(ScriptedResponse.error(401, "Invalid API key"), path="/v1/models")
    async with make(openai_server) as provider:
        with pytest.raises(ProviderError) as caught:
            await provider.list_models()
    error = caught.value
    assert (error.code, error.params) == ("auth_failed", {
        "provider": "Fake", "status": 401, "detail": "Invalid API key"})
    assert str(error).startswith("Fake (HTTP 401): Invalid API key")


def test_errors_reported_inside_a_stream_are_coded_by_the_servers_code() -> None:
    assert provider_failure("overloaded_error", None, detail="Overloaded").code == "server_error"
    assert provider_failure("rate_limit_exceeded", None).code == "rate_limited"
    assert provider_failure("SAFETY", None, detail="blocked").code == "provider_reported"
    assert provider_failure(None, 429, retry_after=0.2).params.get("retry_after") is None
    assert ErrorInfo.from_json(ErrorInfo("timeout", {"provider": "P"}).to_json()) == ErrorInfo(
        "timeout", {"provider": "P"})
    assert ErrorInfo.from_json("an old row") is None
