"""Requests a server sends to us: elicitation (ask the user) and sampling (ask the model).

The app decides how to answer through two Protocols the caller provides: an
:class:`Elicitor` (the CLI asks on a terminal, the window shows a form) and a
:class:`Sampler` (shows the exact messages for approval, then runs them on the
chat's model). Without one, the request is declined and the capability is not
advertised, so well-behaved servers do not ask at all.

Which chat a request belongs to is :data:`desktop.tools.mcp.origin.request_origin`:
the chat service sets it for the turn, and tool calls inherit it; the connection
falls back to the chat of the newest call in flight when the SDK runs the callback
outside the call.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from desktop.core.messages import ImagePart, Message, Part, TextPart

if TYPE_CHECKING:  # the window imports the request types at start: the SDK loads later
    import mcp_types as mt
    from mcp.client.session import ClientRequestContext

log = logging.getLogger(__name__)

ElicitAction = Literal["accept", "decline", "cancel"]
ElicitValue = str | int | float | bool | list[str] | None


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """A server asks the user for information (``schema``: a flat JSON object schema)
    or, in URL mode, to open ``url``."""

    server: str
    message: str
    schema: dict[str, Any] = field(default_factory=dict)
    url: str | None = None
    origin: str | None = None

    @property
    def fields(self) -> dict[str, dict[str, Any]]:
        """Property name -> its schema, in the server's order."""
        properties = self.schema.get("properties")
        return dict(properties) if isinstance(properties, dict) else {}

    @property
    def required(self) -> list[str]:
        required = self.schema.get("required")
        return [str(n) for n in required] if isinstance(required, list) else []


@dataclass(frozen=True, slots=True)
class ElicitationAnswer:
    action: ElicitAction
    content: dict[str, ElicitValue] | None = None

    @classmethod
    def decline(cls) -> ElicitationAnswer:
        return cls("decline")


class Elicitor(Protocol):
    """Answers an elicitation; the window implements it with a form in the tool panel."""

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer: ...


@dataclass(frozen=True, slots=True)
class SamplingRequest:
    """A server asks our model to answer ``messages`` (shown to the user as they are)."""

    server: str
    messages: list[Message]
    max_tokens: int
    system_prompt: str | None = None
    temperature: float | None = None
    stop_sequences: list[str] = field(default_factory=list)
    model_hints: list[str] = field(default_factory=list)
    origin: str | None = None


@dataclass(frozen=True, slots=True)
class SamplingAnswer:
    text: str
    model: str
    stop_reason: str = "endTurn"


class SamplingDenied(Exception):
    """The user (or nobody being there to ask) refused a sampling request."""


class Sampler(Protocol):
    """Runs an approved sampling request; raises :class:`SamplingDenied` when refused."""

    async def __call__(self, request: SamplingRequest) -> SamplingAnswer: ...


def coerce_answer(request: ElicitationRequest, raw: dict[str, str]) -> dict[str, ElicitValue]:
    """Typed values from text a person typed, by each field's JSON type; ``ValueError``
    names the first field that does not parse."""
    out: dict[str, ElicitValue] = {}
    for name, schema in request.fields.items():
        text = raw.get(name, "").strip()
        if not text:
            if name in request.required:
                raise ValueError(f"{name} is required")
            continue
        kind = schema.get("type")
        try:
            if kind == "integer":
                out[name] = int(text)
            elif kind == "number":
                out[name] = float(text)
            elif kind == "boolean":
                if text.lower() not in ("true", "false", "yes", "no", "y", "n"):
                    raise ValueError(text)
                out[name] = text.lower() in ("true", "yes", "y")
            elif kind == "array":
                out[name] = [item.strip() for item in text.split(",") if item.strip()]
            else:
                out[name] = text
        except ValueError:
            raise ValueError(f"{name} must be a{'n' if kind == 'integer' else ''} {kind}") from None
    return out


def sampling_messages(messages: list[mt.SamplingMessage]) -> list[Message]:
    """The server's messages as ours (text and images; other blocks named as text)."""
    import mcp_types as mt

    out: list[Message] = []
    for message in messages:
        blocks = message.content if isinstance(message.content, list) else [message.content]
        parts: list[Part] = []
        for block in blocks:
            if isinstance(block, mt.TextContent):
                parts.append(TextPart(text=block.text))
            elif isinstance(block, mt.ImageContent):
                parts.append(ImagePart(media_type=block.mime_type, data=block.data))
            else:
                parts.append(TextPart(text=f"[{block.type} content not supported]"))
        out.append(Message(role=message.role, parts=parts))
    return out


def elicitation_callback(server: str, elicitor: Elicitor,
                         origin: Callable[[], str | None]) -> Any:
    """The SDK's elicitation callback, answering through ``elicitor``."""
    import mcp_types as mt

    async def callback(context: ClientRequestContext,
                       params: mt.ElicitRequestParams) -> mt.ElicitResult | mt.ErrorData:
        if isinstance(params, mt.ElicitRequestURLParams):
            request = ElicitationRequest(server, params.message, url=params.url, origin=origin())
        else:
            schema = params.requested_schema
            raw = schema if isinstance(schema, dict) else schema.model_dump(
                by_alias=True, exclude_none=True)
            request = ElicitationRequest(server, params.message, dict(raw), origin=origin())
        try:
            answer = await elicitor(request)
        except Exception as exc:  # a broken form must not break the server's call
            log.exception("MCP elicitation from %s failed", server)
            return mt.ErrorData(code=mt.INTERNAL_ERROR, message=f"elicitation failed: {exc}")
        return mt.ElicitResult(action=answer.action,
                               content=answer.content if answer.action == "accept" else None)

    return callback


def sampling_callback(server: str, sampler: Sampler, origin: Callable[[], str | None]) -> Any:
    """The SDK's sampling callback, answering through ``sampler``."""
    import mcp_types as mt

    async def callback(context: ClientRequestContext, params: mt.CreateMessageRequestParams,
                       ) -> mt.CreateMessageResult | mt.ErrorData:
        hints = params.model_preferences.hints if params.model_preferences else None
        request = SamplingRequest(
            server=server, messages=sampling_messages(params.messages),
            max_tokens=params.max_tokens, system_prompt=params.system_prompt,
            temperature=params.temperature, stop_sequences=list(params.stop_sequences or []),
            model_hints=[h.name for h in hints or [] if h.name], origin=origin())
        try:
            answer = await sampler(request)
        except SamplingDenied as exc:
            return mt.ErrorData(code=mt.INVALID_REQUEST,
                                message=str(exc) or "The user declined the sampling request.")
        except Exception as exc:
            log.exception("MCP sampling for %s failed", server)
            return mt.ErrorData(code=mt.INTERNAL_ERROR, message=f"sampling failed: {exc}")
        return mt.CreateMessageResult(role="assistant", model=answer.model,
                                      content=mt.TextContent(type="text", text=answer.text),
                                      stop_reason=answer.stop_reason)

    return callback
