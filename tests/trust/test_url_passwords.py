"""A password written into a provider's base URL never reaches an error message, a
provider's repr or the log."""

from __future__ import annotations

import socket

from desktop.core.events import ErrorEvent
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.retry import RetryPolicy, redact
from desktop.storage.logs import redact as log_redact

SECRET = "hunter2-very-secret"


async def test_an_unreachable_url_with_a_password_is_reported_without_it() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    base = f"http://bob:{SECRET}@127.0.0.1:{port}/v1"
    provider = OpenAIChatProvider(base, "k", timeout=5, retry=RetryPolicy(max_retries=0))
    events = [e async for e in provider.stream(ChatRequest("m", [Message.user("hi")]))]
    await provider.aclose()
    assert isinstance(events[-1], ErrorEvent)
    assert SECRET not in events[-1].message and SECRET not in repr(provider)


def test_both_redactors_mask_url_passwords() -> None:
    text = f"GET https://bob:{SECRET}@example.com/v1 and socks5://u:{SECRET}@proxy:1080"
    for masked in (redact(text), log_redact(text)):
        assert SECRET not in masked and "bob:" in masked and "example.com/v1" in masked
    assert redact("mail a@b.c, https://example.com/a:b@c") == \
        "mail a@b.c, https://example.com/a:b@c"
