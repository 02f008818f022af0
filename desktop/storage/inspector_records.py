"""One recorded exchange as read back from the inspector's database, and its JSON form
(what ``assista inspect --json`` prints and the panel exports)."""

from __future__ import annotations

import json
from typing import Any

import msgspec

__all__ = ["ExchangeRecord", "RecordedChunk", "record_from_row"]


class RecordedChunk(msgspec.Struct, frozen=True):
    """One raw piece of a recorded response, with when it arrived."""

    at_s: float  # since the request started
    data: bytes

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


class ExchangeRecord(msgspec.Struct):
    """One recorded model request and its response, read back from the inspector."""

    id: str
    started_at: float
    session_id: str | None
    message_id: str | None
    provider: str
    provider_id: str | None
    kind: str
    model: str
    method: str
    url: str
    request_headers: list[tuple[str, str]]
    request_body: bytes
    chat_request: dict[str, Any] | None
    status: int | None
    response_headers: list[tuple[str, str]]
    retries: list[dict[str, Any]]
    headers_s: float | None
    first_token_s: float | None
    last_token_s: float | None
    end_s: float | None
    output_tokens: int | None
    tokens_estimated: bool
    answer_text: str
    error: str | None
    finished: bool
    chunks: list[RecordedChunk] = msgspec.field(default_factory=list)

    @property
    def body_json(self) -> Any:
        """The request body decoded (its text when it is not JSON)."""
        text = self.request_body.decode("utf-8", "replace")
        try:
            return json.loads(text)
        except ValueError:
            return text

    @property
    def tokens_per_s(self) -> float | None:
        if not self.output_tokens or self.first_token_s is None or self.last_token_s is None:
            return None
        span = self.last_token_s - self.first_token_s
        return self.output_tokens / span if span > 0 else None

    def timings(self) -> dict[str, Any]:
        return {
            "time_to_headers_s": self.headers_s,
            "time_to_first_token_s": self.first_token_s,
            "time_to_last_token_s": self.last_token_s,
            "total_s": self.end_s,
            "output_tokens": self.output_tokens,
            "output_tokens_estimated": self.tokens_estimated,
            "tokens_per_s": self.tokens_per_s,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "started_at": self.started_at,
            "session_id": self.session_id,
            "message_id": self.message_id,
            "provider": self.provider,
            "provider_kind": self.kind,
            "model": self.model,
            "request": {
                "method": self.method,
                "url": self.url,
                "headers": [{"name": k, "value": v} for k, v in self.request_headers],
                "body": self.body_json,
            },
            "response": {
                "status": self.status,
                "headers": [{"name": k, "value": v} for k, v in self.response_headers],
            },
            "events": [{"at_s": c.at_s, "data": c.text} for c in self.chunks],
            "retries": self.retries,
            "timings": self.timings(),
            "answer_text": self.answer_text,
            "error": self.error,
            "complete": self.finished,
        }


def _pairs(raw: str | None) -> list[tuple[str, str]]:
    return [(str(k), str(v)) for k, v in json.loads(raw or "[]")]


def record_from_row(row: dict[str, Any], chunks: list[tuple[float, bytes]]) -> ExchangeRecord:
    chat = row["chat_request"]
    return ExchangeRecord(
        id=row["id"], started_at=row["started_at"], session_id=row["session_id"],
        message_id=row["message_id"], provider=row["provider"],
        provider_id=row["provider_id"], kind=row["kind"], model=row["model"],
        method=row["method"], url=row["url"],
        request_headers=_pairs(row["request_headers"]),
        request_body=bytes(row["request_body"]),
        chat_request=json.loads(chat) if chat else None,
        status=row["status"], response_headers=_pairs(row["response_headers"]),
        retries=json.loads(row["retries"] or "[]"),
        headers_s=row["headers_s"], first_token_s=row["first_token_s"],
        last_token_s=row["last_token_s"], end_s=row["end_s"],
        output_tokens=row["output_tokens"], tokens_estimated=bool(row["tokens_estimated"]),
        answer_text=row["answer_text"] or "", error=row["error"],
        finished=bool(row["finished"]),
        chunks=[RecordedChunk(at, bytes(data)) for at, data in chunks])
