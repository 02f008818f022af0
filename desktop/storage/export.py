"""Export sessions as lossless JSON or as readable Markdown.

The export reads only sessions and messages; settings, providers and keys are
never part of it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from desktop.core.errors import StorageError
from desktop.core.messages import (
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop.storage.sessions import SessionInfo, SessionStore

ExportFormat = Literal["json", "markdown"]

EXPORT_FORMAT = "assista-export"
EXPORT_VERSION = 1
PREVIEW_CHARS = 500
ARGUMENTS_CHARS = 200

_SESSION_FIELDS = ("id", "title", "created_at", "updated_at", "provider_id", "model", "workspace")


def export_sessions(
    store: SessionStore,
    session_ids: Sequence[str] | None = None,
    fmt: ExportFormat = "json",
) -> str:
    """Export the given sessions (all, most recent first, when ``None``).

    Raises :class:`StorageError` for an unknown session id and ``ValueError``
    for an unknown format.
    """
    if fmt not in ("json", "markdown"):
        raise ValueError(f"unknown export format {fmt!r} (use 'json' or 'markdown')")
    sessions = _collect(store, session_ids)
    if fmt == "json":
        return _to_json(sessions)
    return _to_markdown(sessions)


def parse_json_export(text: str) -> list[tuple[dict[str, Any], list[Message]]]:
    """Read a JSON export back: ``(session fields, messages)`` per session."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise StorageError(f"Not an Assista export: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise StorageError("Not an Assista export file.")
    if doc.get("version") != EXPORT_VERSION:
        raise StorageError(f"Unsupported Assista export version {doc.get('version')!r}.")
    result: list[tuple[dict[str, Any], list[Message]]] = []
    for entry in doc.get("sessions", []):
        fields = {k: v for k, v in entry.items() if k != "messages"}
        messages = [Message.model_validate(m) for m in entry.get("messages", [])]
        result.append((fields, messages))
    return result


# -- collection ----------------------------------------------------------------------


def _collect(
    store: SessionStore, session_ids: Sequence[str] | None
) -> list[tuple[SessionInfo, list[Message]]]:
    if session_ids is None:
        infos = store.list_sessions()
    else:
        infos = []
        for session_id in dict.fromkeys(session_ids):
            info = store.get_session(session_id)
            if info is None:
                raise StorageError(f"Cannot export chat {session_id}: it does not exist.")
            infos.append(info)
    return [(info, store.load_messages(info.id)) for info in infos]


# -- JSON ----------------------------------------------------------------------------


def _to_json(sessions: list[tuple[SessionInfo, list[Message]]]) -> str:
    doc: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": time.time(),
        "sessions": [],
    }
    for info, messages in sessions:
        entry = {name: getattr(info, name) for name in _SESSION_FIELDS}
        entry["extra"] = dict(info.extra)
        entry["messages"] = [m.model_dump(mode="json") for m in messages]
        doc["sessions"].append(entry)
    text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates from a broken stream: escape them
        text = json.dumps(doc, indent=2) + "\n"
    return text


# -- Markdown ------------------------------------------------------------------------


def _to_markdown(sessions: list[tuple[SessionInfo, list[Message]]]) -> str:
    blocks = [_session_markdown(info, messages) for info, messages in sessions]
    text = "\n\n---\n\n".join(blocks).rstrip() + "\n"
    # Lone surrogates (broken streams) cannot be written as UTF-8: replace them.
    return text.encode("utf-8", "replace").decode("utf-8")


def _session_markdown(info: SessionInfo, messages: list[Message]) -> str:
    meta = [f"Created {_fmt_time(info.created_at)}"]
    model = info.model or next((m.model for m in reversed(messages) if m.model), None)
    if model:
        meta.append(f"Model: {model}")
    if info.workspace:
        meta.append(f"Workspace: {info.workspace}")
    meta.append(f"{len(messages)} message{'s' if len(messages) != 1 else ''}")
    out = [f"# {info.title}", "_" + " · ".join(meta) + "_"]
    for message in messages:
        out.append(_message_markdown(message, model))
    return "\n\n".join(out)


def _message_markdown(message: Message, session_model: str | None) -> str:
    out = [_heading(message, session_model)]
    for part in message.parts:
        rendered = _part_markdown(part)
        if rendered:
            out.append(rendered)
    out.extend(_status_notes(message))
    return "\n\n".join(out)


def _heading(message: Message, session_model: str | None) -> str:
    if message.role == "user":
        return "## You"
    if message.role == "assistant":
        model = message.model or session_model
        return f"## Assistant ({model})" if model else "## Assistant"
    if message.role == "tool":
        return "## Tool results"
    return "## System"


def _part_markdown(part: object) -> str:
    if isinstance(part, TextPart):
        return part.text.strip()
    if isinstance(part, ReasoningPart):
        if part.redacted and not part.text.strip():
            body = "_(hidden by the provider)_"
        elif part.text.strip():
            body = part.text.strip()
        else:
            return ""
        return f"<details><summary>Reasoning</summary>\n\n{body}\n\n</details>"
    if isinstance(part, ToolCallPart):
        return f"> 🔧 {_code_span(f'{part.name}({_compact_arguments(part.arguments)})')}"
    if isinstance(part, ToolResultPart):
        return _tool_result_markdown(part)
    if isinstance(part, ImagePart):
        label = f"{part.name} ({part.media_type})" if part.name else part.media_type
        return f"_[Image: {label}]_"
    return ""


_RESULT_LABELS = {
    "succeeded": "✅ {name} succeeded",
    "failed": "❌ {name} failed",
    "denied": "🚫 {name} was denied",
    "cancelled": "⏹ {name} was cancelled",
}


def _tool_result_markdown(part: ToolResultPart) -> str:
    status = "failed" if part.is_error and part.status == "succeeded" else part.status
    header = _RESULT_LABELS[status].format(name=part.name)
    content = part.content.strip()
    if len(content) > PREVIEW_CHARS:
        content = content[:PREVIEW_CHARS].rstrip() + " …"
    if not content:
        return f"> {header}"
    fence = _fence_for(content)
    lines = [header, fence, *content.splitlines(), fence]
    return "\n".join(f"> {line}" if line else ">" for line in lines)


def _status_notes(message: Message) -> list[str]:
    notes: list[str] = []
    if message.error:
        notes.append(f"> ⚠️ **Error:** {' '.join(message.error.split())}")
    if message.status == "stopped":
        notes.append("_Stopped by the user before the answer was complete._")
    elif message.status == "interrupted":
        notes.append("_Interrupted: the app closed before this answer was complete._")
    elif message.status == "streaming":
        notes.append("_Still being written when this export was made._")
    elif message.status == "error" and not message.error:
        notes.append("> ⚠️ **Error:** the response failed.")
    return notes


def _compact_arguments(arguments: str) -> str:
    try:
        text = json.dumps(json.loads(arguments), ensure_ascii=False, separators=(", ", ": "))
    except ValueError:
        text = " ".join(arguments.split())
    if text in ("{}", ""):
        return ""
    if len(text) > ARGUMENTS_CHARS:
        text = text[:ARGUMENTS_CHARS] + "…"
    return text


def _code_span(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _fence_for(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    return "`" * (longest + 1)


def _fmt_time(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).astimezone().strftime("%Y-%m-%d %H:%M")
