"""MCP server tokens (env values, auth headers) kept in the secret store.

Settings keep :data:`SECRET_PLACEHOLDER` where a token was; the value lives in the
keyring (or the 0600 key file) under ``mcp:<server>:<env|headers>:<name>``. The
secret store tells its log redactor every value it reads or writes.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Protocol

log = logging.getLogger(__name__)

SECRET_PLACEHOLDER = "•••••• (stored in the keyring)"
SECRET_NAME = re.compile(r"(?i)key|token|secret|passw|auth|cookie|credential")
FIELDS = ("env", "headers")


class Secrets(Protocol):
    def get(self, provider_id: str) -> str | None: ...

    def set(self, provider_id: str, key: str) -> None: ...


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
                      and SECRET_NAME.search(key))
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
