"""A whole session as data (every branch): read, written back, or copied with new ids.

Used by export (read), import (write) and duplicate (read, new ids, write).
Writing keeps every stored value (times, order, the active branch and what
each fork remembers), so a written record reads back identical.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from typing import Any

import msgspec

from desktop.core.errors import StorageError
from desktop.core.messages import Message, new_id
from desktop.core.records import SessionInfo
from desktop.storage import tree
from desktop.storage.session_rows import (
    INSERT_MESSAGE,
    INSERT_SESSION,
    MESSAGE_COLUMNS,
    SESSION_SELECT,
    message_from_row,
    message_values,
    session_from_row,
    session_values,
)


class SessionRecord(msgspec.Struct, weakref=True):
    """A session and all its messages, every branch, in creation order."""

    info: SessionInfo
    messages: list[Message] = msgspec.field(default_factory=list)
    # When each message was last created or chosen (the fork's remembered branch).
    selected_at: dict[str, float] = msgspec.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The JSON object of an export entry (see :mod:`desktop.storage.export`)."""
        entry: dict[str, Any] = dataclasses.asdict(self.info)
        entry.pop("message_count", None)
        entry["messages"] = []
        for message in self.messages:
            data = message.model_dump(mode="json")
            data["selected_at"] = self.selected_at.get(message.id, message.created_at)
            entry["messages"].append(data)
        return entry

    @classmethod
    def from_json(cls, entry: dict[str, Any], *, chain_unlinked: bool = False) -> SessionRecord:
        """Read an export entry. ``chain_unlinked`` links messages without a parent to
        the one before (exports made before branches existed)."""
        if not isinstance(entry, dict):
            raise StorageError("A chat in the export is not a JSON object.",
                               code="export_chat_malformed")
        fields = {f.name for f in dataclasses.fields(SessionInfo)} - {"message_count"}
        info_data = {k: v for k, v in entry.items() if k in fields}
        if not isinstance(info_data.get("extra", {}), dict):
            raise StorageError(f"Chat {entry.get('id')!r}: 'extra' is not an object.",
                               code="export_chat_malformed", params={"chat": str(entry.get("id"))})
        info = SessionInfo(**info_data)
        messages: list[Message] = []
        selected: dict[str, float] = {}
        for raw in entry.get("messages", []):
            data = dict(raw)
            when = data.pop("selected_at", None)
            message = Message.model_validate(data)
            if chain_unlinked and message.parent_id is None and messages:
                message.parent_id = messages[-1].id
            messages.append(message)
            selected[message.id] = float(when) if when is not None else message.created_at
        if chain_unlinked and info.active_leaf_id is None and messages:
            info = dataclasses.replace(info, active_leaf_id=messages[-1].id)
        info = dataclasses.replace(info, message_count=len(messages))
        return cls(info=info, messages=messages, selected_at=selected)


def read_record(conn: sqlite3.Connection, session_id: str) -> SessionRecord | None:
    row = conn.execute(f"{SESSION_SELECT} WHERE s.id = ?", (session_id,)).fetchone()
    if row is None:
        return None
    rows = conn.execute(
        f"SELECT {MESSAGE_COLUMNS}, selected_at FROM messages WHERE session_id = ? ORDER BY seq",
        (session_id,),
    ).fetchall()
    messages = [message_from_row(r) for r in rows]
    selected = {str(r["id"]): float(r["selected_at"]) for r in rows}
    return SessionRecord(info=session_from_row(row), messages=messages, selected_at=selected)


def write_record(conn: sqlite3.Connection, record: SessionRecord) -> None:
    """Insert the session and its messages as they are (ids, times, order, branches).

    Raises :class:`StorageError` if an id is taken or a parent does not come before
    its children. An active leaf that is not one of the messages is replaced by
    the leaf the forks lead to.
    """
    info = record.info
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (info.id,)).fetchone():
        raise StorageError(f"A chat with id {info.id} already exists.",
                           code="chat_exists", params={"chat": info.id})
    _check_messages(conn, record)
    conn.execute(INSERT_SESSION, session_values(info))
    for message in record.messages:
        values = message_values(info.id, message)
        values["selected_at"] = record.selected_at.get(message.id, message.created_at)
        conn.execute(INSERT_MESSAGE, values)
    ids = {m.id for m in record.messages}
    if info.active_leaf_id not in ids or tree.children_ids(conn, info.id, info.active_leaf_id):
        start = info.active_leaf_id if info.active_leaf_id in ids else None
        tree.set_leaf(conn, info.id, tree.descend(conn, info.id, start))


def with_new_ids(record: SessionRecord, **changes: Any) -> SessionRecord:
    """A copy with a fresh session id and fresh message ids (links remapped).

    ``changes`` replace :class:`SessionInfo` fields (e.g. ``title``).
    """
    mapping = {m.id: new_id("msg_") for m in record.messages}
    messages = []
    for message in record.messages:
        parent = mapping.get(message.parent_id) if message.parent_id is not None else None
        messages.append(message.model_copy(update={"id": mapping[message.id], "parent_id": parent}))
    leaf = record.info.active_leaf_id
    info = dataclasses.replace(
        record.info,
        id=new_id("ses_"),
        active_leaf_id=mapping.get(leaf) if leaf is not None else None,
        **changes,
    )
    selected = {mapping[k]: v for k, v in record.selected_at.items() if k in mapping}
    return SessionRecord(info=info, messages=messages, selected_at=selected)


def ids_taken(conn: sqlite3.Connection, record: SessionRecord) -> bool:
    """Whether the record's session id or any of its message ids is already used."""
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (record.info.id,)).fetchone():
        return True
    return _message_ids_taken(conn, [m.id for m in record.messages])


def _message_ids_taken(conn: sqlite3.Connection, ids: list[str]) -> bool:
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        if conn.execute(f"SELECT 1 FROM messages WHERE id IN ({marks})", chunk).fetchone():
            return True
    return False


def _check_messages(conn: sqlite3.Connection, record: SessionRecord) -> None:
    seen: set[str] = set()
    for message in record.messages:
        if message.id in seen:
            raise StorageError(f"Message {message.id} appears twice in chat {record.info.id}.",
                               code="export_chat_malformed",
                               params={"chat": record.info.id,
                                       "detail": f"message {message.id} appears twice"})
        if message.parent_id is not None and message.parent_id not in seen:
            raise StorageError(
                f"Message {message.id} in chat {record.info.id} follows {message.parent_id}, "
                "which is not an earlier message of that chat.",
                code="export_chat_malformed",
                params={"chat": record.info.id,
                        "detail": f"message {message.id} follows {message.parent_id}"}
            )
        seen.add(message.id)
    if _message_ids_taken(conn, [m.id for m in record.messages]):
        raise StorageError(f"Some messages of chat {record.info.id} already exist in another chat.",
                           code="export_messages_elsewhere", params={"chat": record.info.id})
