"""The one contract between the streaming template and each API's stream parser.

The template (:class:`desktop.providers.http_base.HttpProvider`) owns the HTTP
exchange; a parser (``<api>_stream.py``) only maps decoded wire items to
normalized :mod:`desktop.core.events`. No I/O happens in a parser, so each one is
tested by feeding it items.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, TypeVar

from desktop.core.error_codes import TRANSPORT_CODES, provider_failure
from desktop.core.errors import ProviderError
from desktop.core.events import ErrorEvent, StreamEvent
from desktop.providers.retry import redact

__all__ = ["ParserBase", "StreamParser"]

Item_contra = TypeVar("Item_contra", contravariant=True)


class StreamParser(Protocol[Item_contra]):
    """Decoded wire items in, events out; one instance per response.

    Every method returns the events it completed. Once a terminal event (EndEvent or
    ErrorEvent) was produced, ``closed`` is true and later calls return nothing.
    """

    #: A terminal event was produced: the template stops reading.
    closed: bool
    #: The wire's own closing event arrived (not an error): the template reads the
    #: rest of the body briefly so the connection can be reused.
    done: bool

    def feed(self, item: Item_contra, /) -> list[StreamEvent]:
        """One decoded item: a ServerSentEvent (SSE) or a JSON value (NDJSON)."""
        ...

    def feed_body(self, payload: Any, /) -> list[StreamEvent]:
        """A whole JSON answer from a server that ignored ``stream``; ends the parse."""
        ...

    def finish(self) -> list[StreamEvent]:
        """The body ended: the terminal events (an error if the answer is incomplete)."""
        ...

    def error(self, message: str, code: str | None = None) -> list[StreamEvent]:
        """A terminal error: the template's (malformed body, unexpected failure)."""
        ...

    def interrupted(self, message: str, code: str | None = None) -> list[StreamEvent]:
        """The connection broke mid-stream: what arrived is completed, then the error."""
        ...


class ParserBase:
    """What every parser shares: its name in messages, the secrets masked out of
    them, and the closed/done bookkeeping of the terminal event."""

    __slots__ = ("closed", "done", "provider", "secrets")

    def __init__(self, provider: str, *, secrets: Iterable[str | None] = ()) -> None:
        self.provider = provider
        self.secrets = tuple(secrets)  # masked out of error messages
        self.closed = False
        self.done = False

    def error(self, message: str, code: str | None = None) -> list[StreamEvent]:
        if self.closed:
            return []
        self.closed = True
        return [self._error_event(message, code)]

    def interrupted(self, message: str, code: str | None = None) -> list[StreamEvent]:
        return self.error(message, code)

    def _error_event(
        self, message: str, code: str | None, status: int | None = None
    ) -> ErrorEvent:
        # The status goes on the event only: an in-stream error is not an HTTP reply.
        message = redact(message, self.secrets)
        text = str(ProviderError(message, provider=self.provider))
        detail = None if code in TRANSPORT_CODES else message  # (else the server's words)
        info = provider_failure(code, status, provider=self.provider, detail=detail)
        return ErrorEvent(text, code=code, status=status, provider=self.provider, info=info)
