"""Images made by a model, from every wire API, against loopback servers: the OpenAI
Images API (b64_json and URL), Gemini ``inlineData``, OpenRouter ``message.images``
and the Responses API's ``image_generation`` tool; the images become image parts of
the answer; broken and huge ones become parts with a problem, never an exception."""

from __future__ import annotations

import base64
import contextlib
from collections.abc import Iterator

import pytest

from desktop.core.accumulator import MessageBuilder
from desktop.core.events import EndEvent, ErrorEvent, ImageEvent, StreamEvent
from desktop.core.images import (
    GENERATED,
    image_file_names,
    makes_images,
    part_problem,
    uses_images_api,
)
from desktop.core.messages import ImagePart, Message
from desktop.core.provider import ChatRequest, Provider
from desktop.providers.gemini import GeminiProvider
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.openai_responses import OpenAIResponsesProvider
from desktop.providers.retry import RetryPolicy
from tests.support.gemini_server import FakeGeminiServer, gemini_image_stream, stream_path
from tests.support.images import broken_png, huge_png, png_bytes
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse
from tests.support.responses_server import FakeResponsesServer, image_generation_response
from tests.support.sse_builders import image_stream

RED, BLUE = png_bytes(8, 6, (200, 40, 40)), png_bytes(4, 4, (20, 40, 220))
NO_RETRY = RetryPolicy.disabled()


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


async def collect(provider: Provider, model: str, prompt: str = "a red square",
                  **extra: object) -> list[StreamEvent]:
    request = ChatRequest(model=model, messages=[Message.user(prompt)], extra=dict(extra))
    try:
        async with contextlib.aclosing(provider.stream(request)) as stream:
            return [event async for event in stream]
    finally:
        await provider.aclose()


def answer(events: list[StreamEvent]) -> Message:
    builder = MessageBuilder(model="m", provider="p")
    for event in events:
        builder.feed(event)
    return builder.finish("complete")


def images_of(message: Message) -> list[ImagePart]:
    return [p for p in message.parts if isinstance(p, ImagePart)]


def test_model_names_say_which_make_images() -> None:
    assert uses_images_api("gpt-image-1") and uses_images_api("dall-e-3")
    assert not uses_images_api("openai/gpt-5-image")  # routed: a chat model
    assert not uses_images_api("gpt-4o")
    for model in ("gpt-image-1", "gemini-2.5-flash-image", "google/gemini-2.5-flash-image-preview",
                  "openai/gpt-5-image-mini", "dall-e-2"):
        assert makes_images(model), model
    for model in ("gpt-4o", "gemini-2.5-flash", "llama3.2-vision", "imagine-7b"):
        assert not makes_images(model), model
    assert image_file_names("out/cat.png", 3) == ["out/cat.png", "out/cat-2.png", "out/cat-3.png"]
    assert image_file_names("cat", 2) == ["cat", "cat-2"]


async def test_images_api_b64_json(server: FakeOpenAIServer) -> None:
    server.enqueue_images([RED, BLUE], usage={"input_tokens": 12, "output_tokens": 4160})
    events = await collect(OpenAIChatProvider(server.base_url, "sk-test", retry=NO_RETRY),
                           "gpt-image-1", size="1024x1024", quality="low", n=2)
    body = server.image_requests[0].json
    assert body == {"model": "gpt-image-1", "prompt": "a red square", "n": 2,
                    "size": "1024x1024", "quality": "low"}
    assert server.image_requests[0].headers["authorization"] == "Bearer sk-test"
    assert not server.chat_requests
    assert isinstance(events[-1], EndEvent)
    message = answer(events)
    parts = images_of(message)
    assert [base64.b64decode(p.data) for p in parts] == [RED, BLUE]
    assert parts[0].media_type == "image/png"
    assert parts[0].provider_data[GENERATED] == {"source": "images_api"}
    assert message.usage is not None and message.usage.output_tokens == 4160


async def test_images_api_url_is_downloaded(server: FakeOpenAIServer) -> None:
    url = server.serve_file("img-1.png", RED)
    server.enqueue_images([url])
    events = await collect(OpenAIChatProvider(server.base_url, retry=NO_RETRY), "dall-e-3")
    assert server.image_requests[0].json["response_format"] == "b64_json"
    (part,) = images_of(answer(events))
    assert base64.b64decode(part.data) == RED


async def test_images_api_error_is_one_error_event(server: FakeOpenAIServer) -> None:
    server.enqueue(ScriptedResponse.error(400, "Your request was rejected by the safety system",
                                          code="content_policy_violation"),
                   path="/v1/images/generations")
    events = await collect(OpenAIChatProvider(server.base_url, retry=NO_RETRY), "gpt-image-1")
    assert len(events) == 1 and isinstance(events[0], ErrorEvent)
    assert events[0].status == 400
    assert "safety system" in (events[0].info.params.get("detail", "") if events[0].info else "")


async def test_images_api_huge_and_broken_images_are_placeholders(
        server: FakeOpenAIServer) -> None:
    server.enqueue_images([huge_png(), b"not an image at all", RED])
    events = await collect(OpenAIChatProvider(server.base_url, retry=NO_RETRY), "gpt-image-1")
    parts = images_of(answer(events))
    assert [part_problem(p) for p in parts] == ["too_large", "not_an_image", None]
    assert parts[0].data == "" and parts[1].data == ""


async def test_gemini_inline_data_images() -> None:
    with FakeGeminiServer() as fake:
        model = "gemini-2.5-flash-image"
        fake.enqueue(ScriptedResponse(chunks=gemini_image_stream("Here it is:", [RED])),
                     path=stream_path(model))
        events = await collect(GeminiProvider(fake.base_url, "AIza-test", retry=NO_RETRY), model)
        body = fake.last_body
    assert body["generationConfig"]["responseModalities"] == ["TEXT", "IMAGE"]
    message = answer(events)
    assert message.text == "Here it is:"
    (part,) = images_of(message)
    assert base64.b64decode(part.data) == RED
    assert part.provider_data[GENERATED] == {"source": "gemini"}


async def test_openrouter_message_images(server: FakeOpenAIServer) -> None:
    model = "google/gemini-2.5-flash-image"
    server.enqueue(ScriptedResponse(chunks=image_stream("A square.", [BLUE, "data:image/png;"
                                                                            "base64,!!!!"])))
    events = await collect(OpenAIChatProvider(server.base_url, retry=NO_RETRY), model)
    assert server.last_chat_body["modalities"] == ["image", "text"]
    message = answer(events)
    assert message.text == "A square."
    good, bad = images_of(message)
    assert base64.b64decode(good.data) == BLUE
    assert good.provider_data[GENERATED] == {"source": "openrouter"}
    assert part_problem(bad) is not None


async def test_openrouter_whole_answer_images(server: FakeOpenAIServer) -> None:
    """A server that ignores ``stream`` sends ``message.images`` in one JSON answer."""
    url = "data:image/png;base64," + base64.b64encode(RED).decode()
    server.enqueue(ScriptedResponse.json_body({
        "id": "gen-1", "object": "chat.completion", "choices": [{
            "index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": "Done.",
                "images": [{"type": "image_url", "image_url": {"url": url}}]}}]}))
    events = await collect(OpenAIChatProvider(server.base_url, retry=NO_RETRY),
                           "openai/gpt-5-image-mini")
    (part,) = images_of(answer(events))
    assert base64.b64decode(part.data) == RED


async def test_responses_image_generation_tool() -> None:
    with FakeResponsesServer() as fake:
        fake.enqueue(ScriptedResponse(chunks=image_generation_response([RED], "Made it.")))
        provider = OpenAIResponsesProvider(fake.base_url, "sk-test", retry=NO_RETRY,
                                           options={"image_generation": True})
        events = await collect(provider, "gpt-5")
        body = fake.bodies[0]
    assert {"type": "image_generation"} in body["tools"]
    message = answer(events)
    assert message.text == "Made it."
    (part,) = images_of(message)
    assert base64.b64decode(part.data) == RED
    assert part.provider_data[GENERATED] == {"source": "responses"}


async def test_responses_failed_image_call_is_a_placeholder() -> None:
    with FakeResponsesServer() as fake:
        fake.enqueue(ScriptedResponse(chunks=image_generation_response([RED], "Sorry.",
                                                                       status="failed")))
        events = await collect(OpenAIResponsesProvider(fake.base_url, retry=NO_RETRY),
                               "gpt-5-image-mini")
        body = fake.bodies[0]
    assert {"type": "image_generation"} in body["tools"]  # an image model: always offered
    (part,) = images_of(answer(events))
    assert part_problem(part) == "failed"


def test_broken_png_is_kept_as_sent_and_fails_later_at_decoding() -> None:
    """The provider side checks magic and header size only; pixels are the window's."""
    from desktop.core.images import image_event

    event = image_event(broken_png(), "gemini")
    assert event.problem is None and isinstance(event, ImageEvent)


async def test_gemini_gets_its_own_picture_back_to_edit_it() -> None:
    """The next turn carries the model's image with its ``thoughtSignature`` (Gemini 3
    image models refuse an edit without it); a user's attachment stays a user part."""
    model = "gemini-3-pro-image-preview"
    signed = gemini_image_stream("Here:", [RED])
    import json as _json

    first = _json.loads(signed[1].decode().removeprefix("data: "))
    first["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = "sig-img-1"
    signed[1] = f"data: {_json.dumps(first)}\r\n\r\n".encode()
    with FakeGeminiServer() as fake:
        fake.enqueue(ScriptedResponse(chunks=signed), path=stream_path(model))
        fake.enqueue(ScriptedResponse(chunks=gemini_image_stream("Bluer:", [BLUE])),
                     path=stream_path(model))
        question = Message.user("a red square")
        events = await collect(GeminiProvider(fake.base_url, "AIza-test", retry=NO_RETRY),
                               model)
        reply = answer(events)
        (part,) = images_of(reply)
        assert part.provider_data["thoughtSignature"] == "sig-img-1"
        request = ChatRequest(model=model, messages=[question, reply,
                                                     Message.user("now make it blue")])
        provider = GeminiProvider(fake.base_url, "AIza-test", retry=NO_RETRY)
        async with contextlib.aclosing(provider.stream(request)) as stream:
            [event async for event in stream]
        await provider.aclose()
        body = fake.last_body
    model_turn = body["contents"][1]
    assert model_turn["role"] == "model"
    assert model_turn["parts"][-1] == {
        "inlineData": {"mimeType": "image/png", "data": base64.b64encode(RED).decode()},
        "thoughtSignature": "sig-img-1"}


async def test_a_responses_provider_asks_the_images_api_for_an_images_api_model() -> None:
    with FakeResponsesServer() as fake:
        fake.enqueue_images([BLUE])
        events = await collect(OpenAIResponsesProvider(fake.base_url, retry=NO_RETRY),
                               "gpt-image-1", size="1024x1024")
        assert fake.image_requests[0].json["size"] == "1024x1024"
        assert not fake.responses_requests
    (part,) = images_of(answer(events))
    assert base64.b64decode(part.data) == BLUE
