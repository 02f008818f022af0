"""What the request inspector hides: credential headers by name or by look, URL
passwords and key parameters, and known secret values anywhere."""

from __future__ import annotations

from desktop.core.exchange import (
    REDACTED,
    redact_headers,
    redact_text,
    redact_url,
    secret_values,
)


def test_credential_headers_are_hidden_by_name_or_by_value() -> None:
    headers = [
        ("Authorization", "Bearer sk-live-abcdefgh12345678"),
        ("x-api-key", "sk-ant-api03-abcdefghij"),
        ("x-goog-api-key", "AIzaSyA-1234567890abcdefghijklmno"),
        ("api-key", "0123456789abcdef"),
        ("X-Custom-Auth-Token", "tok_123456"),
        ("Cookie", "session=abc"),
        ("X-Forwarded-For-Proxy", "Basic dXNlcjpwYXNz"),  # the value gives it away
        ("X-Team", "sk-proj-abcdefghijklmn"),
        ("x-ratelimit-remaining-tokens", "9000"),
        ("Content-Type", "application/json"),
        ("X-Note", "contains the secret mcp-tok-98765 inside"),
    ]
    out = dict(redact_headers(headers, ["mcp-tok-98765"]))
    assert out["Authorization"] == f"Bearer {REDACTED}"
    assert out["x-api-key"] == out["x-goog-api-key"] == out["api-key"] == REDACTED
    assert out["X-Custom-Auth-Token"] == out["Cookie"] == out["X-Team"] == REDACTED
    assert out["X-Forwarded-For-Proxy"] == f"Basic {REDACTED}"
    assert out["x-ratelimit-remaining-tokens"] == "9000"
    assert out["Content-Type"] == "application/json"
    assert out["X-Note"] == f"contains the secret {REDACTED} inside"


def test_urls_lose_passwords_and_key_parameters() -> None:
    url = "https://me:hunter2secret@host.example/v1beta/models/x?alt=sse&key=AIzaXYZ&api-version=1"
    out = redact_url(url)
    assert "hunter2secret" not in out and "AIzaXYZ" not in out
    assert out.startswith(f"https://me:{REDACTED}@host.example/v1beta/models/x?")
    assert "alt=sse" in out and "api-version=1" in out and f"key={REDACTED}" in out
    assert redact_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1"


def test_known_secrets_are_hidden_longest_first() -> None:
    text = "key sk-abc-long-secret and its prefix sk-abc"
    assert redact_text(text, ["sk-abc", "sk-abc-long-secret"]) == \
        f"key {REDACTED} and its prefix {REDACTED}"
    assert redact_text("abc", ["ab"]) == "abc"  # too short to hide safely


def test_an_auth_header_value_also_hides_its_bare_token() -> None:
    values = secret_values(["Bearer mcp-token-123456", "Basic dXNlcjpwYXNz", None, "ab"])
    assert set(values) == {"Bearer mcp-token-123456", "mcp-token-123456",
                           "Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"}
    assert redact_text("token mcp-token-123456 alone", values) == f"token {REDACTED} alone"
