"""The OpenAI Images API: ``POST {base_url}/images/generations``.

One request asks for ``n`` images of a ``size`` (``1024x1024``...) and ``quality``;
the reply's ``data`` items carry each image as ``b64_json`` or as a ``url`` (DALL·E
answers with links unless asked for base64; a link is fetched at once, with the
same client, because it expires). Every image is checked and size-limited by
:func:`desktop.core.images.image_event`; one that is too large or broken becomes an
event with a ``problem`` (a placeholder in the answer), never an exception.

The request goes through the provider's own client, retries and error wording
(:class:`~desktop.providers.http_base.HttpProvider`), so the images endpoint of
a provider behaves as its chat endpoint does (proxy, TLS, key, redaction).
:func:`image_answer` makes a chat turn of it: the last user message is the prompt.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

import httpx
import msgspec

from desktop.core.events import EndEvent, ErrorEvent, ImageEvent, StreamEvent, UsageEvent
from desktop.core.images import MAX_IMAGE_BYTES, MAX_IMAGES, image_event
from desktop.core.provider import ChatRequest
from desktop.providers.limits import ReplyTooLarge
from desktop.providers.openai_chat_stream import usage_from_openai

if TYPE_CHECKING:
    from desktop.providers.http_base import HttpProvider

__all__ = ["ImageRequest", "generate_images", "image_answer", "image_stream"]

PATH = "/images/generations"
IMAGE_TIMEOUT_S = 300.0  # a large gpt-image picture takes a minute or more


class ImageRequest(msgspec.Struct, frozen=True):
    """One Images API request: model, prompt, size, quality and number of images."""

    model: str
    prompt: str
    size: str | None = None  # "1024x1024", "1536x1024", "auto"
    quality: str | None = None  # "low" | "medium" | "high" | "standard" | "hd" | "auto"
    n: int = 1

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "prompt": self.prompt,
                                "n": max(1, min(self.n, MAX_IMAGES))}
        if self.size:
            body["size"] = self.size
        if self.quality:
            body["quality"] = self.quality
        if self.model.lower().startswith("dall-e"):
            body["response_format"] = "b64_json"  # (gpt-image models always send it)
        return body


class ImageResult(msgspec.Struct):
    """The images one request made (each checked), and the usage when reported."""

    images: list[ImageEvent]
    usage: UsageEvent | None = None


async def generate_images(provider: HttpProvider, request: ImageRequest
                          ) -> ImageResult | ErrorEvent:
    """The images of ``request``, or the ErrorEvent saying why there are none."""
    payload = await provider.post_json(PATH, request.body(), model=request.model,
                                       timeout=IMAGE_TIMEOUT_S)
    if isinstance(payload, ErrorEvent):
        return payload
    return await _result(provider, payload)


async def _result(provider: HttpProvider, payload: Any) -> ImageResult | ErrorEvent:
    if isinstance(payload, dict) and payload.get("error"):
        error = payload["error"]
        message = error.get("message") if isinstance(error, dict) else error
        return provider.error_event(str(message or "the server reported an error"),
                                     "provider_error")
    items = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(items, list) or not items:
        return provider.error_event("the server sent no images", "malformed_stream")
    kind = payload.get("output_format") if isinstance(payload, dict) else None
    media = f"image/{kind}" if isinstance(kind, str) and kind else None
    images: list[ImageEvent] = []
    for item in items[:MAX_IMAGES]:
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("b64_json"), str):
            images.append(image_event(item["b64_json"], "images_api", media))
        elif isinstance(item.get("url"), str):
            images.append(await _download(provider, item["url"]))
    usage = payload.get("usage") if isinstance(payload, dict) else None
    if isinstance(usage, dict) and "input_tokens" in usage:  # gpt-image's counts
        usage = {"prompt_tokens": usage.get("input_tokens"),
                 "completion_tokens": usage.get("output_tokens")}
    return ImageResult(images, UsageEvent(usage_from_openai(usage))
                       if isinstance(usage, dict) else None)


async def _download(provider: HttpProvider, url: str) -> ImageEvent:
    """An image the reply links to, read up to the size limit."""
    if not url.startswith(("https://", "http://")):
        return ImageEvent(source="images_api", problem="bad_data")
    try:
        data = await provider.download(url, MAX_IMAGE_BYTES, IMAGE_TIMEOUT_S)
    except ReplyTooLarge:
        return ImageEvent(source="images_api", problem="too_large", size=MAX_IMAGE_BYTES)
    except (httpx.HTTPError, httpx.InvalidURL):
        return ImageEvent(source="images_api", problem="download_failed")
    if data is None:
        return ImageEvent(source="images_api", problem="download_failed")
    return image_event(data, "images_api")


def request_from_chat(request: ChatRequest) -> ImageRequest:
    """The image request of a chat turn: the last user message is the prompt; size,
    quality and n may come in ``request.extra``."""
    prompt = next((m.body_text for m in reversed(request.messages) if m.role == "user"), "")
    extra = request.extra
    n = extra.get("n")
    return ImageRequest(request.model, prompt.strip(),
                        size=str(extra["size"]) if extra.get("size") else None,
                        quality=str(extra["quality"]) if extra.get("quality") else None,
                        n=n if isinstance(n, int) and not isinstance(n, bool) else 1)


async def image_stream(provider: HttpProvider, request: ChatRequest
                       ) -> AsyncGenerator[StreamEvent, None]:
    """:func:`image_answer` as a stream, for an adapter's ``_stream``."""
    for event in await image_answer(provider, request):
        yield event


async def image_answer(provider: HttpProvider, request: ChatRequest) -> list[StreamEvent]:
    """A chat turn answered by the Images API: the images then an EndEvent, or one
    ErrorEvent."""
    image_request = request_from_chat(request)
    if not image_request.prompt:
        return [provider.error_event("an image model needs a text prompt", "bad_request")]
    result = await generate_images(provider, image_request)
    if isinstance(result, ErrorEvent):
        return [result]
    events: list[StreamEvent] = list(result.images)
    if result.usage is not None:
        events.append(result.usage)
    events.append(EndEvent("stop"))
    return events
