"""The OpenAI audio endpoints: speech (``/audio/speech``) and transcription
(``/audio/transcriptions``, multipart), as OpenAI, Groq and compatible local servers
speak them.

The HTTP client is the providers' own (:func:`desktop.providers.http_clients.make_async_client`:
the same timeouts, TLS, user agent and proxy routing as a chat request). Failures are
:class:`~desktop.core.errors.ProviderError` with the closed code of the status or
transport failure, like a chat request's.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import httpx
import msgspec

from desktop.core.errors import ProviderError
from desktop.providers.http_clients import make_async_client
from desktop.providers.http_errors import describe_status, describe_transport_error, server_detail
from desktop.providers.limits import ReplyTooLarge, read_limited

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy

__all__ = ["MAX_AUDIO_REPLY", "MAX_UPLOAD", "AudioEndpoint", "audio_mime"]

#: The largest speech reply read (an hour of 128 kbit/s MP3 is ~58 MB).
MAX_AUDIO_REPLY = 64 * 1024 * 1024
#: OpenAI's own limit for a transcription upload.
MAX_UPLOAD = 25 * 1024 * 1024
SPEECH_FORMATS = ("mp3", "opus", "aac", "flac", "wav", "pcm")
_MIMES = {"mp3": "audio/mpeg", "wav": "audio/wav", "flac": "audio/flac", "ogg": "audio/ogg",
          "opus": "audio/ogg", "m4a": "audio/mp4", "mp4": "audio/mp4", "webm": "audio/webm",
          "aac": "audio/aac", "mpeg": "audio/mpeg", "mpga": "audio/mpeg"}


def audio_mime(filename: str) -> str:
    """The MIME type a transcription upload is sent with, from its file name."""
    return _MIMES.get(filename.rsplit(".", 1)[-1].lower(), "application/octet-stream")


class AudioEndpoint(msgspec.Struct, weakref=True):
    """One provider's audio endpoints: ``base_url`` as a chat request's (``.../v1``)."""

    base_url: str
    api_key: str | None = None
    name: str = "provider"
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    timeout: float = 120.0
    proxy: Proxy | None = None

    def _url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path

    def _headers(self) -> dict[str, str]:
        headers = dict(self.headers)
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    async def speak(self, model: str, text: str, *, voice: str = "alloy",
                    audio_format: str = "mp3", instructions: str | None = None) -> bytes:
        """The spoken ``text`` as audio bytes in ``audio_format``."""
        if not text.strip():
            raise ValueError("nothing to say")
        body: dict[str, Any] = {"model": model, "input": text, "voice": voice,
                                "response_format": audio_format}
        if instructions:
            body["instructions"] = instructions
        return await self._post("/audio/speech", model, json=body, limit=MAX_AUDIO_REPLY)

    async def transcribe(self, model: str, audio: bytes, filename: str, *,
                         language: str | None = None) -> str:
        """The text said in ``audio`` (a file's bytes; ``filename`` gives its type)."""
        if len(audio) > MAX_UPLOAD:
            raise ProviderError("the recording is larger than 25 MB", provider=self.name,
                                code="bad_request", model=model)
        data = {"model": model, "response_format": "json"}
        if language:
            data["language"] = language
        files = {"file": (filename, audio, audio_mime(filename))}
        raw = await self._post("/audio/transcriptions", model, data=data, files=files,
                               limit=4 * 1024 * 1024)
        try:
            reply = json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace").strip()  # a server that answers text
        text = reply.get("text") if isinstance(reply, dict) else None
        if not isinstance(text, str):
            raise ProviderError("the transcription reply has no text",
                                provider=self.name, code="bad_response", model=model)
        return text.strip()

    async def _post(self, path: str, model: str, *, limit: int, **content: Any) -> bytes:
        url = self._url(path)
        async with make_async_client(timeout=self.timeout, proxy=self.proxy) as client:
            try:
                request = client.build_request("POST", url, headers=self._headers(), **content)
                response = await client.send(request, stream=True)
            except httpx.HTTPError as exc:
                message, code = describe_transport_error(exc, url, self.timeout)
                raise ProviderError(message, provider=self.name,
                                    server_code=code, model=model) from exc
            try:
                try:
                    body = await read_limited(response, limit)
                except ReplyTooLarge as exc:
                    raise ProviderError(str(exc),
                                        provider=self.name, code="reply_too_large",
                                        model=model) from exc
                except httpx.HTTPError as exc:
                    message, code = describe_transport_error(exc, url, self.timeout)
                    raise ProviderError(message, provider=self.name,
                                        server_code=code, model=model) from exc
            finally:
                await response.aclose()
        if response.status_code >= 300:
            secrets = (self.api_key,)
            message, status_code = describe_status(response.status_code, body,
                                            response.headers.get("content-type", ""),
                                            secrets=secrets)
            detail, retry_after = server_detail(response, body, secrets)
            raise ProviderError(message, provider=self.name,
                                status=response.status_code, server_code=status_code, model=model,
                                detail=detail, retry_after=retry_after)
        return body
