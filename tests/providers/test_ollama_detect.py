"""detect_ollama: OLLAMA_HOST (or localhost:11434), a quick GET /api/tags, a config."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from desktop.core.events import EndEvent, TextDelta
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.providers.factory import create_provider, detect_ollama
from desktop.providers.ollama import OllamaProvider
from tests.support.ollama_server import (
    FakeOllamaServer,
    chat_line,
    done_line,
    tag_entry,
    unused_port,
)
from tests.support.openai_server import ScriptedResponse


@pytest.fixture
def ollama() -> Iterator[FakeOllamaServer]:
    models = [tag_entry("nomic-embed-text:latest", "nomic-bert", "137M"),
              tag_entry("qwen3:8b", "qwen3", "8.2B"), tag_entry("llama3.2:latest")]  # fmt: skip
    with FakeOllamaServer(models=models) as server:
        yield server


@pytest.mark.parametrize("form", ["127.0.0.1:{port}", "http://127.0.0.1:{port}/", "0.0.0.0:{port}"])
async def test_detects_ollama_at_ollama_host(ollama: FakeOllamaServer, form: str) -> None:
    env = {"OLLAMA_HOST": form.format(port=ollama.port)}
    async with httpx.AsyncClient() as client:
        config = await detect_ollama(client, env)
    assert config is not None
    host = "localhost" if form.startswith("0.0.0.0") else "127.0.0.1"
    assert config.base_url == f"http://{host}:{ollama.port}"
    assert (config.id, config.preset, config.kind, config.source, config.name) == (
        "detected_ollama", "ollama", "ollama", "detected", "Ollama")  # fmt: skip
    assert config.model == "qwen3:8b"  # the first model that is not an embedding model
    assert ollama.requests[-1].path == "/api/tags"


async def test_nothing_listening() -> None:
    async with httpx.AsyncClient() as client:
        env = {"OLLAMA_HOST": f"127.0.0.1:{unused_port()}"}
        assert await detect_ollama(client, env) is None


async def test_default_host_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    requested: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requested.append(str(request.url))
        return httpx.Response(200, json={"models": []})

    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        config = await detect_ollama(client, {})
        monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11500")
        from_env = await detect_ollama(client)  # environ=None reads os.environ
    assert config is not None and config.base_url == "http://localhost:11434"
    assert config.model == ""  # Ollama runs but has no model yet
    assert from_env is not None and from_env.base_url == "http://gpu-box:11500"
    assert requested == ["http://localhost:11434/api/tags", "http://gpu-box:11500/api/tags"]


@pytest.mark.parametrize(
    "response",
    [
        ScriptedResponse.text(404, "404 page not found", "text/plain"),
        ScriptedResponse.text(200, "<html>LM Studio</html>"),
        ScriptedResponse.json_body({"object": "list", "data": []}),
    ],
    ids=["404", "html", "openai-models"],
)
async def test_other_servers_are_not_ollama(
    ollama: FakeOllamaServer, response: ScriptedResponse
) -> None:
    ollama.enqueue(response, path="/api/tags")
    async with httpx.AsyncClient() as client:
        assert await detect_ollama(client, {"OLLAMA_HOST": ollama.url}) is None


async def test_slow_server_times_out(ollama: FakeOllamaServer) -> None:
    slow = ScriptedResponse.json_body({"models": []})
    slow.chunks = [b'{"models": [', b"]}"]
    slow.hold_after = 1
    ollama.enqueue(slow, path="/api/tags")
    async with httpx.AsyncClient() as client:
        assert await detect_ollama(client, {"OLLAMA_HOST": ollama.url}, timeout=0.1) is None
    slow.release()


async def test_detected_config_builds_a_working_provider(ollama: FakeOllamaServer) -> None:
    ollama.enqueue_ndjson([chat_line("Hello", model="qwen3:8b"), done_line(model="qwen3:8b")])
    async with httpx.AsyncClient() as client:
        config = await detect_ollama(client, {"OLLAMA_HOST": ollama.url})
        assert config is not None
        provider = create_provider(config, None, client=client)
        assert isinstance(provider, OllamaProvider) and provider.name == "Ollama"
        request = ChatRequest(model=config.model, messages=[Message.user("Hi")])
        events = [event async for event in provider.stream(request)]
        await provider.aclose()
    assert events[0] == TextDelta("Hello") and isinstance(events[-1], EndEvent)
    assert ollama.last_chat_body["model"] == "qwen3:8b"
