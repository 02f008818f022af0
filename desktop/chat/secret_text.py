"""Keeping secrets out of what the window shows: a key redacted from an error message,
the header names whose values are secrets (kept in the keyring, shown masked), what an
MCP server's stored secret shows as. The
window takes them from here, not from the provider or storage layer (issue 26)."""

from __future__ import annotations

from desktop.providers.retry import redact
from desktop.storage.mcp_secrets import SECRET_PLACEHOLDER
from desktop.storage.settings_store import SENSITIVE_HEADERS

__all__ = ["SECRET_PLACEHOLDER", "SENSITIVE_HEADERS", "redact"]
