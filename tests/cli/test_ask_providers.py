"""``assista ask --provider KIND --base-url URL`` drives every wire API (real processes,
loopback servers that speak each provider's protocol)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_ask_export import assista
from tests.support.anthropic_server import FakeAnthropicServer
from tests.support.gemini_server import FakeGeminiServer
from tests.support.ollama_server import FakeOllamaServer, chat_line, done_line
from tests.support.responses_server import FakeResponsesServer


def events_of(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines()]


def text_of(events: list[dict[str, object]]) -> str:
    return "".join(str(e["text"]) for e in events if e["type"] == "text_delta")


def test_anthropic(tmp_path: Path) -> None:
    with FakeAnthropicServer() as server:
        server.enqueue_text("Bonjour from Claude")
        done = assista("ask", "--provider", "anthropic", "--base-url", server.url,
                       "--model", "claude-test", "--json", "hi", data_dir=tmp_path,
                       env={"ANTHROPIC_API_KEY": "sk-ant-test-000000000000"})
        assert done.returncode == 0, done.stderr
        assert text_of(events_of(done.stdout)) == "Bonjour from Claude"
        request = server.requests[-1]
        assert request.headers["x-api-key"] == "sk-ant-test-000000000000"
        assert request.json["system"]


def test_gemini_key_from_google_api_key(tmp_path: Path) -> None:
    with FakeGeminiServer() as server:
        server.enqueue_text("Hello from Gemini")
        done = assista("ask", "--provider", "gemini", "--base-url", server.base_url,
                       "--model", "gemini-test", "hi", data_dir=tmp_path,
                       env={"GOOGLE_API_KEY": "AIza-test-key-0000000000"})
        assert done.returncode == 0, done.stderr
        assert done.stdout == "Hello from Gemini"
        request = server.requests[-1]
        assert request.headers["x-goog-api-key"] == "AIza-test-key-0000000000"
        assert "AIza" not in request.path


def test_openai_responses(tmp_path: Path) -> None:
    with FakeResponsesServer() as server:
        server.enqueue_text("Hello from Responses")
        done = assista("ask", "--provider", "openai-responses", "--base-url", server.base_url,
                       "--model", "gpt-test", "--json", "hi", data_dir=tmp_path,
                       env={"OPENAI_API_KEY": "sk-test-responses-0000000"})
        assert done.returncode == 0, done.stderr
        events = events_of(done.stdout)
        assert text_of(events) == "Hello from Responses"
        final = events[-1]
        assert final["type"] == "messages"
        assistant = final["messages"][-1]  # type: ignore[index]
        assert assistant["provider_data"]["response_id"]


def test_ollama_needs_no_key(tmp_path: Path) -> None:
    with FakeOllamaServer() as server:
        server.enqueue_ndjson([chat_line("Hello "), chat_line("from Ollama"), done_line()])
        done = assista("ask", "--provider", "ollama", "--base-url", server.base_url,
                       "--model", "llama3.2", "hi", data_dir=tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "Hello from Ollama"


def test_missing_key_is_one_clear_line(tmp_path: Path) -> None:
    done = assista("ask", "--provider", "anthropic", "--base-url", "http://127.0.0.1:9",
                   "--model", "claude-test", "hi", data_dir=tmp_path)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "ANTHROPIC_API_KEY" in lines[0]


def test_unknown_provider(tmp_path: Path) -> None:
    done = assista("ask", "--provider", "nosuch", "--model", "m", "hi", data_dir=tmp_path)
    assert done.returncode != 0 and "nosuch" in done.stderr
