"""Requests a server sends to us: elicitation (ask the user) and sampling (ask the model).

The app decides how to answer through two Protocols the caller provides: an
:class:`Elicitor` (the CLI asks on a terminal, the window shows a form) and a
:class:`Sampler` (shows the exact messages for approval, then runs them on the
chat's model). Without one, the request is declined and the capability is not
advertised, so well-behaved servers do not ask at all.

Which chat a request belongs to is the chat of the tool call in flight on that
connection (:attr:`ToolContext.origin <desktop.tools.registry.ToolContext.origin>`,
given to the call); the SDK runs the callback outside the call, so with calls from
several chats in flight the newest one's is taken.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol

import msgspec

from desktop.core.messages import ImagePart, Message, Part, TextPart

if TYPE_CHECKING:  # the window imports the request types at start: the SDK loads later
    import mcp_types as mt
    from mcp.client.session import ClientRequestContext

log = logging.getLogger(__name__)

ElicitAction = Literal["accept", "decline", "cancel"]
ElicitValue = str | int | float | bool | list[str] | None


class ElicitationRequest(msgspec.Struct, frozen=True):
    """A server asks the user for information (``schema``: a flat JSON object schema)
    or, in URL mode, to open ``url``."""

    server: str
    message: str
    schema: dict[str, Any] = msgspec.field(default_factory=dict)
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


class ElicitationAnswer(msgspec.Struct, frozen=True):
    """The user's answer to a server's elicitation: accept (with content), decline, cancel."""

    action: ElicitAction
    content: dict[str, ElicitValue] | None = None

    @classmethod
    def decline(cls) -> ElicitationAnswer:
        return cls("decline")


class Elicitor(Protocol):
    """Answers an elicitation; the window implements it with a form in the tool panel."""

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer: ...


class SamplingRequest(msgspec.Struct, frozen=True):
    """A server asks our model to answer ``messages`` (shown to the user as they are)."""

    server: str
    messages: list[Message]
    max_tokens: int
    system_prompt: str | None = None
    temperature: float | None = None
    stop_sequences: list[str] = msgspec.field(default_factory=list)
    model_hints: list[str] = msgspec.field(default_factory=list)
    origin: str | None = None


class SamplingAnswer(msgspec.Struct, frozen=True):
    """The model's answer to a server's sampling request."""

    text: str
    model: str
    stop_reason: str = "endTurn"


class SamplingDenied(Exception):
    """The user (or nobody being there to ask) refused a sampling request."""


class Sampler(Protocol):
    """Runs an approved sampling request; raises :class:`SamplingDenied` when refused."""

    async def __call__(self, request: SamplingRequest) -> SamplingAnswer: ...


def choices(schema: dict[str, Any]) -> list[tuple[Any, str]]:
    """(value, title) of a field's allowed values: ``enum`` (with ``enumNames``), titled
    ``oneOf``/``anyOf`` of ``const``s, and the same under ``items`` for multi-select."""
    inner = schema.get("items") if schema.get("type") == "array" else schema
    if not isinstance(inner, dict):
        return []
    if isinstance(inner.get("enum"), list):
        names = inner.get("enumNames")
        values = list(inner["enum"])
        titles = ([str(n) for n in names] if isinstance(names, list)
                  and len(names) == len(values) else [str(v) for v in values])
        return list(zip(values, titles, strict=True))
    for key in ("oneOf", "anyOf"):
        options = inner.get(key)
        if isinstance(options, list):
            return [(o["const"], str(o.get("title", o["const"]))) for o in options
                    if isinstance(o, dict) and "const" in o]
    return []


def _value(text: str, kind: object, schema: dict[str, Any]) -> ElicitValue:
    allowed = choices(schema)
    if allowed:  # a choice may be typed as its value, its title or its number (1-based)
        picked = []
        for item in ([t.strip() for t in text.split(",")] if kind == "array" else [text]):
            found = [v for n, (v, title) in enumerate(allowed, 1)
                     if item in (str(v), title) or item.lower() == title.lower()
                     or item == str(n)]
            picked.append(found[0] if found else item)
        return picked if kind == "array" else picked[0]
    if kind == "integer":
        return int(text)
    if kind == "number":
        return float(text)
    if kind == "boolean":
        if text.lower() not in ("true", "false", "yes", "no", "y", "n"):
            raise ValueError(text)
        return text.lower() in ("true", "yes", "y")
    if kind == "array":
        return [item.strip() for item in text.split(",") if item.strip()]
    return text


def coerce_answer(request: ElicitationRequest, raw: dict[str, str]) -> dict[str, ElicitValue]:
    """Typed values from text a person typed, by each field's JSON type (an empty
    answer takes the field's default), checked against the requested schema (choices,
    limits, lengths, patterns, and the email/uri/date/date-time formats);
    ``ValueError`` names the first field that is wrong and why."""
    out: dict[str, ElicitValue] = {}
    for name, schema in request.fields.items():
        text = raw.get(name, "").strip()
        if not text:
            if "default" in schema:
                out[name] = schema["default"]
            elif name in request.required:
                raise ValueError(f"{name} is required")
            continue
        kind = schema.get("type")
        try:
            out[name] = _value(text, kind, schema)
        except ValueError:
            raise ValueError(f"{name} must be a{'n' if kind == 'integer' else ''} {kind}") from None
    problem = schema_problem(request, out)
    if problem is not None:
        raise ValueError(problem)
    return out


def schema_problem(request: ElicitationRequest, content: dict[str, ElicitValue]) -> str | None:
    """The first way ``content`` breaks the requested schema, as ``"NAME: why"``."""
    import jsonschema

    schema = dict(request.schema)
    schema.setdefault("type", "object")
    validator = jsonschema.Draft202012Validator(schema, format_checker=_format_checker())
    order = {name: index for index, name in enumerate(request.fields)}
    for error in sorted(validator.iter_errors(content),  # in the form's order
                        key=lambda e: order.get(str(e.path[0]) if e.path else "", -1)):
        where = str(error.path[0]) if error.path else (
            str(error.validator_value[0]) if error.validator == "required" else "answer")
        return f"{where}: {_reason(error, request.fields.get(where, {}))}"
    return None


def _reason(error: Any, schema: dict[str, Any]) -> str:
    allowed = choices(schema)
    if error.validator in ("enum", "oneOf", "anyOf", "const") and allowed:
        return "choose one of " + ", ".join(title for _v, title in allowed)
    if error.validator == "format":
        return f"not a valid {error.validator_value}"
    if error.validator in ("maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"):
        return f"must be {_BOUNDS[error.validator]} {error.validator_value}"
    return str(error.message)


_BOUNDS = {"maximum": "at most", "minimum": "at least", "exclusiveMaximum": "below",
           "exclusiveMinimum": "above"}


@functools.cache  # jsonschema loads on the first answer, not when the window starts
def _format_checker() -> Any:
    """The formats MCP elicitation allows (email, uri, date, date-time), checked without
    optional packages: jsonschema checks email and date itself; uri and date-time here."""
    from datetime import datetime
    from urllib.parse import urlsplit

    import jsonschema

    checker = jsonschema.FormatChecker(formats=("email", "date"))

    @checker.checks("uri", raises=ValueError)
    def _uri(value: object) -> bool:
        if not isinstance(value, str):
            return True
        parts = urlsplit(value)
        return bool(parts.scheme) and (bool(parts.netloc) or parts.scheme in ("mailto", "urn"))

    @checker.checks("date-time", raises=ValueError)
    def _date_time(value: object) -> bool:
        if not isinstance(value, str):
            return True
        return "T" in value.upper() and datetime.fromisoformat(value) is not None

    return checker


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
