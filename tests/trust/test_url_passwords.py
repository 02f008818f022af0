"""A password written into a provider's base URL never reaches an error message, a
provider's repr, the log or the database; custom header values live in the secret
store too."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from desktop.app import AppContext
from desktop.core.events import ErrorEvent
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.core.settings import ProviderConfig
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.retry import RetryPolicy, redact
from desktop.storage.logs import redact as log_redact
from tests.support.openai_server import FakeOpenAIServer
from tests.trust.support import assista

SECRET = "hunter2-very-secret"
TOKEN = "corp-token-5ec7e7-value"


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


def _files_holding(root: Path, needle: bytes, skip: Path) -> list[str]:
    return [str(p) for p in root.rglob("*")
            if p.is_file() and p != skip and needle in p.read_bytes()]


def test_a_saved_password_and_custom_header_live_only_in_the_secret_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the real CLI: the request still carries them, and no file of the data
    folder but the secret store holds them — not the database, not the log, not the
    request inspector — including after a failed request."""
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    data = tmp_path / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        ctx = AppContext.open(str(data), log_to_stderr=False)
        try:
            base = server.base_url.replace("http://", f"http://bob:{SECRET}@")
            config = ProviderConfig(name="Locked", base_url=base, model="gpt-test",
                                    headers={"X-Corp-Token": TOKEN, "X-Title": "Assista"})
            ctx.settings_store.save_provider(config)
            ctx.secrets.set(config.id, "sk-trust-test-key-0123456789")
            row = ctx.db.query_one("SELECT config FROM providers")
            assert row is not None and SECRET not in row["config"]
            assert TOKEN not in row["config"] and "Assista" in row["config"]
            loaded = ctx.settings_store.get_provider(config.id)
            assert loaded is not None and loaded.base_url == base
            assert loaded.headers == {"X-Corp-Token": TOKEN, "X-Title": "Assista"}
            secrets_file = ctx.paths.secrets_path
        finally:
            ctx.close()
        server.enqueue_text("fine")
        done = assista("ask", "--provider", "Locked", "hi", data_dir=data)
        assert done.returncode == 0, done.stderr
        request = server.chat_requests[-1]
        assert request.headers["x-corp-token"] == TOKEN
        server.enqueue_error(500, "the server broke")
        failed = assista("ask", "--provider", "Locked", "again", data_dir=data)
        assert failed.returncode == 1 and SECRET not in failed.stderr
    for needle in (SECRET, TOKEN):
        assert _files_holding(data, needle.encode(), secrets_file) == []
    assert SECRET.encode() in secrets_file.read_bytes()


def test_clear_values_written_before_are_moved_to_the_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    ctx = AppContext.open(str(tmp_path), log_to_stderr=False)
    try:
        old = ProviderConfig(name="Old", base_url=f"https://bob:{SECRET}@example.com/v1",
                             headers={"Api-Secret-V2": TOKEN})
        ctx.db.execute("INSERT INTO providers (id, position, config) VALUES (?, 0, ?)",
                       (old.id, old.model_dump_json()))  # as an older version wrote it
        loaded = ctx.settings_store.list_providers()
        assert loaded[0].base_url == old.base_url and loaded[0].headers == old.headers
        row = ctx.db.query_one("SELECT config FROM providers")
        assert row is not None and SECRET not in row["config"] and TOKEN not in row["config"]
        assert "bob@example.com" in row["config"]
    finally:
        ctx.close()
