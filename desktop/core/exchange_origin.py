"""Which chat and which answer a model request belongs to, for the request inspector.

The chat service sets the session when a turn starts; the agent loop sets the
answer's message id just before it asks the provider. The provider layer reads
both when it records an exchange, so no provider needs to know about chats.
A context variable: turns running at once each see their own.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["ExchangeOrigin", "current_origin", "set_message", "set_session"]


@dataclass(slots=True)
class ExchangeOrigin:
    session_id: str | None = None
    message_id: str | None = None


_origin: ContextVar[ExchangeOrigin | None] = ContextVar("exchange_origin", default=None)


def current_origin() -> ExchangeOrigin:
    """A copy of the origin of requests made now (empty outside a turn)."""
    origin = _origin.get()
    return ExchangeOrigin(origin.session_id, origin.message_id) if origin else ExchangeOrigin()


def set_session(session_id: str | None) -> None:
    """Requests made from here on (in this task) belong to chat ``session_id``."""
    _origin.set(ExchangeOrigin(session_id, None))


def set_message(message_id: str) -> None:
    """Requests made from here on (in this task) produce answer ``message_id``."""
    origin = _origin.get()
    _origin.set(ExchangeOrigin(origin.session_id if origin else None, message_id))
