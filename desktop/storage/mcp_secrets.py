"""MCP server tokens (env values, header values) kept in the secret store.

Settings keep :data:`SECRET_PLACEHOLDER` where a token was; the value lives in the
keyring (or the 0600 key file) under ``mcp:<server>:<env|headers>:<name>``. The
secret store tells its log redactor every value it reads or writes. Every header
value counts as a secret (any name can carry a token) but the well-known public
ones; an environment value does when its name says so (``*_KEY``, ``*TOKEN*``...).
"""

from __future__ import annotations

import logging
import re
from typing import Any, Protocol

log = logging.getLogger(__name__)

SECRET_PLACEHOLDER = "•••••• (stored in the keyring)"
SECRET_NAME = re.compile(r"(?i)key|token|secret|passw|auth|cookie|credential")
FIELDS = ("env", "headers")
#: Headers that never carry a credential (kept in the settings as they are).
PUBLIC_HEADERS = frozenset({
    "http-referer", "referer", "x-title", "user-agent", "accept", "accept-language",
    "content-type", "anthropic-version", "anthropic-beta", "openai-beta",
    "openai-organization", "openai-project", "x-client-name", "mcp-protocol-version",
})


class Secrets(Protocol):
    def get(self, provider_id: str) -> str | None: ...

    def set(self, provider_id: str, key: str) -> None: ...


def _secret_name(field_name: str, key: str) -> bool:
    if field_name == "headers":
        return key.strip().lower() not in PUBLIC_HEADERS
    return bool(SECRET_NAME.search(key))


def holds_clear_secrets(raw: dict[str, Any]) -> bool:
    """Whether a stored server still has a secret in clear (written before)."""
    for field_name in FIELDS:
        values = raw.get(field_name)
        if isinstance(values, dict) and any(
                isinstance(v, str) and v and v != SECRET_PLACEHOLDER
                and _secret_name(field_name, k) for k, v in values.items()):
            return True
    return False


def _slot(server: str, field_name: str, key: str) -> str:
    return f"mcp:{server}:{field_name}:{key}"


def stash_mcp_secrets(raw: dict[str, Any], secrets: Secrets) -> dict[str, Any]:
    """A copy of ``raw`` with token-like values moved to ``secrets``."""
    server = dict(raw)
    name = str(server.get("name", ""))
    for field_name in FIELDS:
        values = server.get(field_name)
        if not isinstance(values, dict):
            continue
        kept: dict[str, Any] = {}
        for key, value in values.items():
            secret = (isinstance(value, str) and value and value != SECRET_PLACEHOLDER
                      and _secret_name(field_name, key))
            if secret:
                secrets.set(_slot(name, field_name, key), value)
            kept[key] = SECRET_PLACEHOLDER if secret else value
        server[field_name] = kept
    return server


def resolve_mcp_secrets(raw: dict[str, Any], secrets: Secrets) -> dict[str, Any]:
    """A copy of ``raw`` with the placeholders replaced by the stored values."""
    server = dict(raw)
    name = str(server.get("name", ""))
    for field_name in FIELDS:
        values = server.get(field_name)
        if not isinstance(values, dict):
            continue
        resolved: dict[str, Any] = {}
        for key, value in values.items():
            if value != SECRET_PLACEHOLDER:
                resolved[key] = value
                continue
            stored = secrets.get(_slot(name, field_name, key)) or ""
            if not stored:
                log.warning("MCP server %s: the stored %s value %s is missing", name,
                            field_name, key)
            resolved[key] = stored
        server[field_name] = resolved
    return server
