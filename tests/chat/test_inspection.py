"""Copy as curl: run through a real shell, the key comes from the environment variable
named after the provider kind, other hidden headers from their own variables, and
nothing else in the request expands."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from desktop.chat.inspection import answer_ids, curl_command, key_variable, last_answer_ids
from desktop.core.exchange import REDACTED
from desktop.core.messages import Message
from desktop.storage.inspector_records import ExchangeRecord


def record(kind: str, url: str, headers: list[tuple[str, str]], body: bytes) -> ExchangeRecord:
    return ExchangeRecord(
        id="e", started_at=0.0, session_id=None, message_id=None, provider="P",
        provider_id=None, kind=kind, model="m", method="POST", url=url,
        request_headers=headers, request_body=body, chat_request=None, status=200,
        response_headers=[], retries=[], headers_s=None, first_token_s=None,
        last_token_s=None, end_s=None, output_tokens=None, tokens_estimated=False,
        answer_text="", error=None, finished=True)


def shell_words(command: str, env: dict[str, str], cwd: Path) -> list[str]:
    """The words a shell makes of ``command`` (curl replaced by printing them)."""
    assert command.startswith("curl ")
    printed = subprocess.run(["bash", "-c", "printf '%s\\0' " + command[len("curl "):]],
                             capture_output=True, env={"PATH": "/usr/bin:/bin", **env},
                             cwd=cwd, check=True).stdout
    return printed.decode().split("\0")[:-1]


def test_curl_takes_the_key_from_the_kinds_variable_and_expands_nothing_else(
        tmp_path: Path) -> None:
    body = json.dumps({"messages": [{"content": "it's $(touch pwned) `id` $HOME"}]}).encode()
    rec = record("anthropic", "https://api.example.com/v1/messages?beta=1",
                 [("x-api-key", REDACTED), ("X-Proxy-Token", f"tok {REDACTED} $(touch no)"),
                  ("anthropic-version", "2023-06-01"), ("Content-Length", "99")], body)
    command = curl_command(rec)
    assert REDACTED not in command
    words = shell_words(command, {"ANTHROPIC_API_KEY": "the-key", "X_PROXY_TOKEN": "pt"},
                        tmp_path)
    assert words[:4] == ["-N", "-X", "POST", "https://api.example.com/v1/messages?beta=1"]
    assert "x-api-key: the-key" in words
    assert "X-Proxy-Token: tok pt $(touch no)" in words
    assert "anthropic-version: 2023-06-01" in words
    assert not any(w.startswith("Content-Length") for w in words)
    assert words[-1] == body.decode()
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "no").exists()


def test_a_key_in_the_url_becomes_the_variable_too(tmp_path: Path) -> None:
    rec = record("gemini", f"https://g.example/v1beta/models/x:stream?alt=sse&key={REDACTED}",
                 [("Authorization", f"Bearer {REDACTED}")], b"{}")
    words = shell_words(curl_command(rec), {"GEMINI_API_KEY": "AIzaK"}, tmp_path)
    assert "https://g.example/v1beta/models/x:stream?alt=sse&key=AIzaK" in words
    assert "Authorization: Bearer AIzaK" in words
    assert key_variable("openai-responses") == "OPENAI_API_KEY"
    assert key_variable("my-kind") == "MY_KIND_API_KEY"


def test_an_answer_is_its_assistant_messages_between_questions() -> None:
    q1, a1 = Message.user("q1"), Message(role="assistant", parts=[])
    q2, a2, tool, a3 = (Message.user("q2"), Message(role="assistant", parts=[]),
                        Message(role="tool", parts=[]), Message(role="assistant", parts=[]))
    history = [q1, a1, q2, a2, tool, a3]
    assert answer_ids(history, a3.id) == [a2.id, a3.id]
    assert answer_ids(history, a1.id) == [a1.id]
    assert last_answer_ids(history) == [a2.id, a3.id]
    assert last_answer_ids([q1]) == []
