"""Export sessions as lossless JSON or as readable Markdown.

The export reads only sessions and messages; settings, providers and keys are
never part of it. Chats in the trash are not exported. An export of every chat
also holds the memories (:mod:`desktop.storage.memory_export`).

JSON (version 2) holds every session field (pinned, archived, system prompt,
assistant, project, active leaf...), the chats' projects with their files' text,
and every message of every branch in creation order, each with its ``parent_id``,
usage, provider data and ``selected_at`` (which branch each fork shows): importing
it gives back identical sessions (see :mod:`desktop.storage.importer`). Version 1
files (before branches) still import.
Markdown shows the active branch, then each other branch after the message it
branches from.
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
    Source,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop.core.sources import answer_sources
from desktop.storage.memory_export import export_memories
from desktop.storage.projects import ProjectStore
from desktop.storage.records import SessionRecord
from desktop.storage.sessions import SessionStore

ExportFormat = Literal["json", "markdown"]

EXPORT_FORMAT = "assista-export"
EXPORT_VERSION = 2
READABLE_VERSIONS = (1, 2)
PREVIEW_CHARS = 500
ARGUMENTS_CHARS = 200


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
        # Memories belong to no one chat: they come with an export of everything.
        memories = export_memories(store.db) if session_ids is None else []
        return _to_json(sessions, _projects(store, sessions, every=session_ids is None),
                        memories)
    return _to_markdown(sessions)


def parse_json_export(text: str) -> list[SessionRecord]:
    """Read a JSON export back: one record per session (raises :class:`StorageError`)."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise StorageError(f"Not an Assista export: {exc}",
                           code="not_an_export", params={"detail": str(exc)}) from exc
    return parse_export_document(doc)


def parse_export_document(doc: Any) -> list[SessionRecord]:
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise StorageError("Not an Assista export file.", code="not_an_export")
    version = doc.get("version")
    if version not in READABLE_VERSIONS:
        raise StorageError(
            f"Unsupported Assista export version {version!r} (this version reads "
            f"{', '.join(map(str, READABLE_VERSIONS))}); update Assista to import it.",
            code="export_version", params={"version": str(version)}
        )
    result: list[SessionRecord] = []
    for entry in doc.get("sessions", []):
        try:
            result.append(SessionRecord.from_json(entry, chain_unlinked=version == 1))
        except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            title = entry.get("title") if isinstance(entry, dict) else None
            raise StorageError(
                f"The chat {title!r} in the export is not readable: {first}",
                code="export_chat_malformed", params={"chat": str(title), "detail": first}
            ) from exc
    return result


# -- collection ----------------------------------------------------------------------


def _collect(store: SessionStore, session_ids: Sequence[str] | None) -> list[SessionRecord]:
    if session_ids is None:
        ids = [info.id for info in store.list_sessions(archived=None)]
    else:
        ids = []
        for session_id in dict.fromkeys(session_ids):
            if store.get_session(session_id) is None:
                raise StorageError(f"Cannot export chat {session_id}: it does not exist.",
                                   code="chat_gone", params={"chat": session_id})
            ids.append(session_id)
    return [store.export_record(session_id) for session_id in ids]


def _projects(store: SessionStore, records: list[SessionRecord],
              every: bool) -> list[dict[str, Any]]:
    """The projects of the exported chats (every project when every chat is exported)."""
    projects = ProjectStore(store.db)
    wanted = ([p.id for p in projects.list_projects()] if every else
              list(dict.fromkeys(r.info.project_id for r in records if r.info.project_id)))
    entries = [projects.export_entry(project_id) for project_id in wanted]
    return [entry for entry in entries if entry is not None]


# -- JSON ----------------------------------------------------------------------------


def _to_json(records: list[SessionRecord], projects: list[dict[str, Any]],
             memories: list[dict[str, Any]]) -> str:
    doc: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": time.time(),
        "sessions": [record.to_json() for record in records],
    }
    if projects:
        doc["projects"] = projects  # each with its files (desktop.storage.projects)
    if memories:
        doc["memories"] = memories
    text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates from a broken stream: escape them
        text = json.dumps(doc, indent=2) + "\n"
    return text


# -- Markdown ------------------------------------------------------------------------


def _to_markdown(records: list[SessionRecord]) -> str:
    blocks = [_session_markdown(record) for record in records]
    text = "\n\n---\n\n".join(blocks).rstrip() + "\n"
    # Lone surrogates (broken streams) cannot be written as UTF-8: replace them.
    return text.encode("utf-8", "replace").decode("utf-8")


def _session_markdown(record: SessionRecord) -> str:
    info, messages = record.info, record.messages
    by_id = {m.id: m for m in messages}
    children: dict[str | None, list[Message]] = {}
    for m in messages:
        children.setdefault(m.parent_id, []).append(m)
    active = _path(by_id, info.active_leaf_id)
    meta = [f"Created {_fmt_time(info.created_at)}"]
    model = info.model or next((m.model for m in reversed(messages) if m.model), None)
    if model:
        meta.append(f"Model: {model}")
    if info.workspace:
        meta.append(f"Workspace: {info.workspace}")
    meta.append(f"{len(messages)} message{'s' if len(messages) != 1 else ''}")
    leaves = [m for m in messages if m.id not in children]
    if len(leaves) > 1:
        meta.append(f"{len(leaves)} branches")
    out = [f"# {info.title}", "_" + " · ".join(meta) + "_"]
    if info.system_prompt:
        out.append("> **System prompt:** " + " ".join(info.system_prompt.split()))
    out.extend(_turns_markdown(active, model, children))
    shown = {m.id for m in active}
    for leaf in leaves:
        rest = [m for m in _path(by_id, leaf.id) if m.id not in shown]
        if not rest:
            continue
        parent = by_id.get(rest[0].parent_id) if rest[0].parent_id else None
        where = f"after “{_excerpt(parent)}”" if parent is not None else "from the start"
        out.append(f"### Other branch ({where})")
        out.extend(_turns_markdown(rest, model, children))
        shown.update(m.id for m in rest)
    return "\n\n".join(out)


def _path(by_id: dict[str, Message], leaf_id: str | None) -> list[Message]:
    path: list[Message] = []
    seen: set[str] = set()
    current = by_id.get(leaf_id) if leaf_id else None
    while current is not None and current.id not in seen:
        seen.add(current.id)
        path.append(current)
        current = by_id.get(current.parent_id) if current.parent_id else None
    return path[::-1]


def _excerpt(message: Message, limit: int = 60) -> str:
    text = " ".join(message.text.split()) or _heading(message, None).lstrip("# ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _turns_markdown(messages: list[Message], session_model: str | None,
                    children: dict[str | None, list[Message]]) -> list[str]:
    """Each message, and after the last message of each answer the numbered sources
    it cited or retrieved."""
    out: list[str] = []
    answer: list[Message] = []
    for number, message in enumerate(messages):
        out.append(_message_markdown(message, session_model, children))
        if message.role != "user":
            answer.append(message)
        ends = number + 1 == len(messages) or messages[number + 1].role == "user"
        if ends and answer:
            sources = answer_sources(answer)
            if sources:
                out.append(_sources_markdown(sources))
            answer = []
    return out


def _sources_markdown(sources: list[Source]) -> str:
    lines = ["**Sources**", ""]
    for number, source in enumerate(sources, 1):
        title = re.sub(r"([\\\[\]])", r"\\\1", " ".join(source.title.split()))
        if source.path is not None:
            lines.append(f"{number}. {title}: {_code_span(source.path)}")
        elif source.url:
            url = source.url.replace(" ", "%20").replace(")", "%29").replace("(", "%28")
            lines.append(f"{number}. [{title or url}]({url})")
        else:
            lines.append(f"{number}. {title}")
    return "\n".join(lines)


def _message_markdown(
    message: Message, session_model: str | None, children: dict[str | None, list[Message]]
) -> str:
    heading = _heading(message, session_model)
    siblings = children.get(message.parent_id, [])
    if len(siblings) > 1:
        index = next(i for i, m in enumerate(siblings) if m.id == message.id) + 1
        heading += f" · branch {index} of {len(siblings)}"
    out = [heading]
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
        return f"> Tool call: {_code_span(f'{part.name}({_compact_arguments(part.arguments)})')}"
    if isinstance(part, ToolResultPart):
        return _tool_result_markdown(part)
    if isinstance(part, ImagePart):
        label = f"{part.name} ({part.media_type})" if part.name else part.media_type
        return f"_[Image: {label}]_"
    return ""


_RESULT_LABELS = {
    "succeeded": "Result: {name} succeeded",
    "failed": "Result: {name} failed",
    "denied": "Result: {name} was denied",
    "cancelled": "Result: {name} was cancelled",
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
        notes.append(f"> **Error:** {' '.join(message.error.split())}")
    if message.status == "stopped":
        notes.append("_Stopped by the user before the answer was complete._")
    elif message.status == "interrupted":
        notes.append("_Interrupted: the app closed before this answer was complete._")
    elif message.status == "streaming":
        notes.append("_Still being written when this export was made._")
    elif message.status == "error" and not message.error:
        notes.append("> **Error:** the response failed.")
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
