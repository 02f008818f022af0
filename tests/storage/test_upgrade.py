"""A database written by the first version upgrades in place and loses nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from desktop.core.messages import Message, TextPart, ToolCallPart, ToolResultPart
from desktop.storage.backup import list_backups
from desktop.storage.database import Database
from desktop.storage.migrations import STORAGE_MIGRATIONS
from desktop.storage.sessions import SessionStore
from tests.support.legacy_db import legacy_database

from .conftest import full_message

V1_INSERT_MESSAGE = """
INSERT INTO messages (id, session_id, seq, role, status, created_at, model, provider, usage,
                      error, finish_reason, parts)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""


def _v1_database(path: Path) -> dict[str, list[Message]]:
    """Chats written the way version 1 of the store wrote them."""
    chats = {
        "ses_a": [
            Message.user("hello from version one"),
            full_message(),
            Message(
                role="tool",
                parts=[ToolResultPart(tool_call_id="call_1", name="read_file", content="ok")],
            ),
            Message(role="assistant", status="streaming", parts=[TextPart(text="part")]),
        ],
        "ses_b": [Message(role="assistant", parts=[ToolCallPart(id="c", name="n")])],
        "ses_empty": [],
    }
    with legacy_database(path, upto=1) as conn:
        for n, (sid, messages) in enumerate(chats.items()):
            conn.execute(
                "INSERT INTO sessions (id, title, created_at, updated_at, extra) "
                "VALUES (?, ?, ?, ?, ?)",
                (sid, f"Chat {n}", n, n + 0.5, '{"k": 1}'),
            )
            for seq, m in enumerate(messages, start=1):
                data = m.model_dump(mode="json")
                conn.execute(
                    V1_INSERT_MESSAGE,
                    (
                        m.id,
                        sid,
                        seq,
                        m.role,
                        m.status,
                        m.created_at,
                        m.model,
                        m.provider,
                        json.dumps(data["usage"]) if m.usage else None,
                        m.error,
                        m.finish_reason,
                        json.dumps(data["parts"]),
                    ),
                )
        conn.execute("INSERT INTO settings (key, value) VALUES ('app', '{}')")
    return chats


def test_version_1_database_upgrades_to_chains(tmp_path: Path) -> None:
    path = tmp_path / "assista.sqlite3"
    chats = _v1_database(path)
    with Database(path) as db:
        assert db.schema_versions == {f.name: f.latest for f in STORAGE_MIGRATIONS}
        backup = db.backup_path
        assert backup is not None and list_backups(path) == [backup]
        assert db.integrity_check() == ["ok"]
        assert db.query_one("PRAGMA foreign_key_check") is None
        store = SessionStore(db)
        for sid, messages in chats.items():
            info = store.get_session(sid)
            assert info is not None and info.extra == {"k": 1}
            loaded = store.load_messages(sid)
            assert [m.id for m in loaded] == [m.id for m in messages]
            for before, after in zip(messages, loaded, strict=True):
                assert after.model_dump(exclude={"parent_id"}) == before.model_dump(
                    exclude={"parent_id"}
                )
            assert [m.parent_id for m in loaded] == [None, *(m.id for m in loaded)][: len(loaded)]
            assert info.active_leaf_id == (messages[-1].id if messages else None)
        assert [h.message_id for h in store.search("version one")] == [chats["ses_a"][0].id]
        assert store.search("part") == []  # still streaming: indexed once interrupted
        assert store.mark_interrupted() == 1
        assert [h.message_id for h in store.search("part")] == [chats["ses_a"][3].id]
        new = Message.user("after the upgrade")
        store.save_message("ses_a", new)
        assert new.parent_id == chats["ses_a"][3].id
        assert store.delete_session("ses_a") and store.purge_deleted() == 1
        assert db.query_one("SELECT COUNT(*) FROM messages WHERE session_id = 'ses_a'")[0] == 0  # type: ignore[index]
    with sqlite3.connect(backup) as conn:  # the backup is the untouched version 1 file
        assert conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == 1
        assert conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 5
