"""Shared fixtures: real SQLite files in tmp_path, and no real keyring, ever."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest

from desktop.core.messages import (
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from desktop.storage import logs
from desktop.storage.database import Database
from desktop.storage.paths import DataPaths
from desktop.storage.sessions import SessionStore
from desktop.storage.settings_store import SettingsStore


class MemoryKeyring(keyring.backend.KeyringBackend):
    """An in-memory keyring. Negative priority: keyring never picks it on its own."""

    priority = -10.0

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.store.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")


class BrokenKeyring(MemoryKeyring):
    """A keyring that looks fine but fails on use (locked, D-Bus gone...)."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError("locked")


@pytest.fixture(autouse=True)
def _no_real_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any code asking keyring for the system backend gets a fresh in-memory one."""
    monkeypatch.setattr(keyring, "get_keyring", MemoryKeyring)


@pytest.fixture(autouse=True)
def _clean_logging() -> Iterator[None]:
    yield
    logs.shutdown_logging()
    logging.captureWarnings(False)


@pytest.fixture
def paths(tmp_path: Path) -> DataPaths:
    return DataPaths.resolve(tmp_path / "data")


@pytest.fixture
def db(paths: DataPaths) -> Iterator[Database]:
    database = Database(paths.db_path)
    yield database
    database.close()


@pytest.fixture
def store(db: Database) -> SessionStore:
    return SessionStore(db)


@pytest.fixture
def settings_store(db: Database) -> SettingsStore:
    return SettingsStore(db)


def full_message() -> Message:
    """An assistant message using every part type and every optional field."""
    return Message(
        role="assistant",
        parts=[
            ReasoningPart(
                text="Let me think… about `x`",
                signature="c2lnbmF0dXJl",
                duration_s=1.25,
                provider_data={"encrypted_content": "gAAAA", "nested": {"a": [1, 2.5, None]}},
            ),
            ReasoningPart(redacted=True, provider_data={"data": "opaque-blob"}),
            TextPart(text="Hello 👋 — ünïcödé\nline two\u2028sep, lone \ud800 surrogate"),
            ToolCallPart(
                id="call_1",
                name="read_file",
                arguments='{"path": "README.md"}',
                provider_data={"thought_signature": "xyz"},
            ),
            ToolResultPart(
                tool_call_id="call_1",
                name="read_file",
                content="# Readme\n" + "x" * 2000,
                duration_s=0.003,
            ),
            ToolResultPart(
                tool_call_id="call_2",
                name="write_file",
                content="permission denied",
                is_error=True,
                status="failed",
            ),
            ImagePart(media_type="image/jpeg", data="aGVsbG8=", name="cat.jpg"),
        ],
        created_at=1_700_000_000.123456,
        status="complete",
        model="gpt-4o-mini",
        provider="openai",
        usage=Usage(
            input_tokens=10, output_tokens=20, reasoning_tokens=5, cached_tokens=2, cost=0.0001
        ),
        error=None,
        finish_reason="tool_calls",
    )
