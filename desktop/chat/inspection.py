"""Reading the request inspector's records for an answer, and showing them: as text,
as JSON, as a curl command. Used by ``assista inspect`` and the inspector panel."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from desktop.core.exchange import REDACTED
from desktop.core.messages import Message
from desktop.providers.registry import key_variable as adapters_variable

if TYPE_CHECKING:
    from desktop.storage.inspector_records import ExchangeRecord
    from desktop.storage.inspector_store import InspectorStore
    from desktop.storage.sessions import SessionStore

__all__ = ["NothingRecorded", "answer_ids", "curl_command", "describe", "exchanges_for",
           "key_variable", "last_answer_ids"]

#: Headers that carry the provider's key itself (the rest become their own variables).
KEY_HEADERS = frozenset({"authorization", "x-api-key", "x-goog-api-key", "api-key"})


class NothingRecorded(LookupError):
    """No recorded request for what was asked; the message says why."""


def key_variable(kind: str) -> str:
    """The environment variable "Copy as curl" names for a provider kind's key (the
    adapter's ``key_variable``)."""
    return adapters_variable(kind)


def answer_ids(messages: Sequence[Message], message_id: str) -> list[str]:
    """The ids of the answer ``message_id`` belongs to: it and the assistant messages
    (tool rounds) next to it, up to the user messages around them."""
    index = next((i for i, m in enumerate(messages) if m.id == message_id), None)
    if index is None:
        return [message_id]
    start = index
    while start > 0 and messages[start - 1].role != "user":
        start -= 1
    end = index
    while end + 1 < len(messages) and messages[end + 1].role != "user":
        end += 1
    return [m.id for m in messages[start:end + 1] if m.role == "assistant"]


def last_answer_ids(messages: Sequence[Message]) -> list[str]:
    last = next((m for m in reversed(messages) if m.role == "assistant"), None)
    return answer_ids(messages, last.id) if last is not None else []


def exchanges_for(store: InspectorStore, sessions: SessionStore, *,
                  session_id: str | None = None,
                  message_id: str | None = None) -> list[ExchangeRecord]:
    """The exchanges of a message (the whole answer it is part of), else of the last
    answer of ``session_id``, else of the most recently used chat; NothingRecorded."""
    if message_id:
        found = store.for_messages([message_id])
        if not found:
            raise NothingRecorded(f"no recorded request for message {message_id}")
        return found
    if session_id is None:
        chats = sessions.list_sessions(archived=None)
        if not chats:
            raise NothingRecorded("there are no chats yet")
        session_id = max(chats, key=lambda c: c.updated_at).id
    elif sessions.get_session(session_id) is None:
        raise NothingRecorded(f"no chat with id {session_id}")
    messages = sessions.load_active_branch(session_id).messages
    ids = last_answer_ids(messages)
    if not ids:
        raise NothingRecorded(f"chat {session_id} has no answer yet")
    found = store.for_messages(ids)
    if not found:
        raise NothingRecorded(
            f"no recorded request for the last answer of chat {session_id} (recording may "
            "be off in Settings, or the record is older than the retention period)")
    return found


def _with_variable(text: str, variable: str) -> str:
    """``text`` for a shell, each REDACTED part as ``${variable}`` (double quotes, the
    rest escaped so nothing else expands); without one, single-quoted."""
    if REDACTED not in text:
        return shlex.quote(text)
    pieces = [re.sub(r'([\\"$`])', r"\\\1", piece) for piece in text.split(REDACTED)]
    return '"' + ("${" + variable + "}").join(pieces) + '"'


def curl_command(record: ExchangeRecord) -> str:
    """The request as a curl command: the key is ``$OPENAI_API_KEY`` (after the
    provider kind), other redacted headers variables named after them."""
    variable = key_variable(record.kind)
    parts = ["curl", "-N", "-X", record.method, _with_variable(record.url, variable)]
    for name, value in record.request_headers:
        lowered = name.lower()
        if lowered in ("content-length", "host", "accept-encoding", "connection"):
            continue
        own = variable if lowered in KEY_HEADERS else \
            re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_")
        parts += ["-H", _with_variable(f"{name}: {value}", own)]
    if record.request_body:
        parts += ["--data-binary", shlex.quote(record.request_body.decode("utf-8", "replace"))]
    return " ".join(parts)


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.0f} ms"


def describe(records: Sequence[ExchangeRecord], *, events: int = 40) -> str:
    """A readable account of the exchanges (at most ``events`` chunks each)."""
    out: list[str] = []
    for n, rec in enumerate(records, 1):
        timings = rec.timings()
        speed = timings["tokens_per_s"]
        out += [
            f"== Request {n} of {len(records)}: {rec.provider} ({rec.kind}) {rec.model} "
            f"[{rec.id}]",
            f"{rec.method} {rec.url}",
            *(f"  {k}: {v}" for k, v in rec.request_headers),
            "",
            _pretty(rec.body_json),
            "",
            f"-- Response: HTTP {rec.status if rec.status is not None else '-'}",
            *(f"  {k}: {v}" for k, v in rec.response_headers),
        ]
        for retry in rec.retries:
            out.append(f"  retry {retry['attempt']} at {_seconds(retry['at_s'])} after "
                       f"{retry['delay_s']:.2f}s wait: {retry['reason']}")
        out.append(f"-- Events ({len(rec.chunks)})")
        for chunk in rec.chunks[:events]:
            out.append(f"  +{chunk.at_s * 1000:8.1f} ms  {chunk.text.rstrip()!s}")
        if len(rec.chunks) > events:
            out.append(f"  ... {len(rec.chunks) - events} more (--json shows every one)")
        tokens = rec.output_tokens if rec.output_tokens is not None else "-"
        out += [
            "-- Timings",
            f"  to headers {_seconds(rec.headers_s)}, first token "
            f"{_seconds(rec.first_token_s)}, last token {_seconds(rec.last_token_s)}, "
            f"total {_seconds(rec.end_s)}",
            f"  output tokens {tokens}{' (counted from events)' if rec.tokens_estimated else ''}"
            f", {f'{speed:.1f} tokens/s' if speed else '- tokens/s'}",
        ]
        if rec.error:
            out.append(f"-- Error: {rec.error}")
        out.append("")
    return "\n".join(out)


def _pretty(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
