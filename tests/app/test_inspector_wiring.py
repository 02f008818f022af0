"""The app's providers record to inspector.sqlite with every secret the app knows
hidden -- an MCP server's header token included -- and Settings turns recording off."""

from __future__ import annotations

from pathlib import Path

from desktop.app import AppContext
from desktop.core.events import TextDelta
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.core.settings import ProviderConfig
from desktop.storage.secrets import SecretStore
from tests.support.openai_server import FakeOpenAIServer

MCP_TOKEN = "mcp-header-token-5566778899"
API_KEY = "sk-wiring-key-0011223344"


async def ask(ctx: AppContext, config: ProviderConfig, text: str) -> str:
    provider = ctx.build_provider(config)
    request = ChatRequest(model="gpt-test", messages=[Message.user(text)])
    parts = [e.text async for e in provider.stream(request) if isinstance(e, TextDelta)]
    await provider.aclose()
    return "".join(parts)


async def test_known_secrets_are_hidden_and_recording_can_be_off(tmp_path: Path) -> None:
    ctx = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
    try:
        web = {"name": "web", "transport": "http", "url": "https://mcp.example.com/mcp",
               "headers": {"Authorization": f"Bearer {MCP_TOKEN}"}}
        ctx.settings.update(mcp_servers=[web])
        assert ctx.mcp_configs()[0].headers["Authorization"].endswith(MCP_TOKEN)
        with FakeOpenAIServer() as server:
            config = ProviderConfig(name="Loop", base_url=server.base_url, model="gpt-test")
            ctx.settings_store.save_provider(config)
            ctx.secrets.set(config.id, API_KEY)
            server.enqueue_text(f"you wrote {MCP_TOKEN}")
            assert await ask(ctx, config, f"my token is {MCP_TOKEN}") == f"you wrote {MCP_TOKEN}"
            ctx.settings.update(inspector_enabled=False)
            server.enqueue_text("not recorded")
            await ask(ctx, config, "off the record")
    finally:
        ctx.close()
    reopened = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    try:
        records = reopened.inspector.store._records("SELECT * FROM exchanges", ())
        assert len(records) == 1  # the second request was made with recording off
        assert "my token is «redacted»" in records[0].request_body.decode()
        assert records[0].answer_text == "you wrote «redacted»"
    finally:
        reopened.close()
    for path in tmp_path.glob("inspector.sqlite*"):
        data = path.read_bytes()
        assert MCP_TOKEN.encode() not in data and API_KEY.encode() not in data
