"""Reading a ChatGPT data export (``conversations.json``) into session records.

Each conversation has a ``mapping`` of nodes (``id``, ``message``, ``parent``,
``children``) forming a tree — edits and regenerations are sibling nodes — and
``current_node``, the leaf shown last. Messages have an ``author.role``
(system, user, assistant, tool), a ``content`` with a ``content_type`` (text,
multimodal_text, code, execution_output, thoughts, ...) and ``metadata``.

Mapping: user/assistant text becomes text parts; an assistant message sent to
a tool (``recipient`` other than "all") becomes a tool call, and the tool's
answer a tool result; ``thoughts`` become reasoning. Hidden and empty system
messages and the root node are skipped (their children move up). Images are
not in ``conversations.json``; they become a note in the text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from desktop.core.messages import (
    Message,
    MessageStatus,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop.core.records import SessionInfo
from desktop.storage.records import SessionRecord
from desktop.storage.session_rows import clean_title

SESSION_PREFIX = "ses_chatgpt_"
MESSAGE_PREFIX = "msg_chatgpt_"


def looks_like_chatgpt(doc: Any) -> bool:
    items = doc if isinstance(doc, list) else [doc]
    return bool(items) and all(isinstance(c, dict) and "mapping" in c for c in items)


def parse_chatgpt(doc: Any) -> list[SessionRecord]:
    """One record per conversation (a list, or a single conversation object)."""
    items = doc if isinstance(doc, list) else [doc]
    return [_conversation(c) for c in items if isinstance(c, dict)]


@dataclass
class _Node:
    """One node of a ChatGPT conversation's tree, its message read."""

    id: str
    parent: str | None
    message: Message | None  # None: skipped (root, hidden system, empty)
    call_id: str | None = None  # the tool call this node made


def _conversation(conv: dict[str, Any]) -> SessionRecord:
    conv_id = str(conv.get("conversation_id") or conv.get("id") or "")
    mapping: dict[str, Any] = conv.get("mapping") or {}
    created = _time(conv.get("create_time")) or 0.0
    updated = _time(conv.get("update_time")) or created
    nodes = {nid: _node(nid, raw, created) for nid, raw in mapping.items() if isinstance(raw, dict)}
    order = _topological(nodes)
    kept: dict[str, Message] = {}
    messages: list[Message] = []
    used: set[str] = set()
    for nid in order:
        node = nodes[nid]
        if node.message is None:
            continue
        parent = _kept_ancestor(nodes, node.parent, kept)
        update: dict[str, Any] = {"parent_id": parent}
        if node.message.id in used:  # two nodes reuse one message id (a damaged export)
            update["id"] = f"{MESSAGE_PREFIX}{_safe(nid)}_{len(used)}"
        message = node.message.model_copy(update=update)
        used.add(message.id)
        if message.role == "tool":
            message = _pair_result(message, nodes, node.parent, kept)
        kept[nid] = message
        messages.append(message)
    leaf = _kept_ancestor(nodes, str(conv.get("current_node") or ""), kept)
    selected = {m.id: m.created_at for m in messages}
    bump = max([updated, *selected.values()], default=updated) + 1.0
    by_id = {m.id: m for m in messages}
    current = by_id.get(leaf) if leaf else None
    walked: set[str] = set()
    depth = 0
    while current is not None and current.id not in walked:  # the branch each fork shows
        walked.add(current.id)
        selected[current.id] = bump + depth * 1e-3
        depth += 1
        current = by_id.get(current.parent_id) if current.parent_id else None
    info = SessionInfo(
        id=SESSION_PREFIX + _safe(conv_id or str(created)),
        title=clean_title(str(conv.get("title") or "Imported chat")),
        created_at=created,
        updated_at=updated,
        model=conv.get("default_model_slug") or None,
        archived=bool(conv.get("is_archived")),
        active_leaf_id=leaf,
        extra={"imported_from": "chatgpt", "chatgpt_id": conv_id},
    )
    return SessionRecord(info=info, messages=messages, selected_at=selected)


def _node(nid: str, raw: dict[str, Any], default_time: float) -> _Node:
    parent = raw.get("parent")
    data = raw.get("message")
    node = _Node(nid, str(parent) if parent else None, None)
    if not isinstance(data, dict):
        return node
    author = data.get("author") or {}
    role = str(author.get("role") or "")
    metadata = data.get("metadata") or {}
    content = data.get("content") or {}
    parts = _parts(content)
    if not parts or metadata.get("is_visually_hidden_from_conversation"):
        return node
    recipient = str(data.get("recipient") or "all")
    message_id = MESSAGE_PREFIX + _safe(str(data.get("id") or nid))
    if role == "assistant" and recipient != "all":  # a call to a tool (python, browser...)
        node.call_id = "call_" + _safe(nid)
        arguments = json.dumps({"input": _plain(parts)}, ensure_ascii=False)
        parts = [ToolCallPart(id=node.call_id, name=recipient, arguments=arguments)]
    elif role == "tool":
        name = str(author.get("name") or "tool")
        parts = [ToolResultPart(tool_call_id="", name=name, content=_plain(parts))]
    elif role not in ("user", "assistant", "system"):
        return node
    status: MessageStatus = "complete"
    if data.get("status") == "in_progress":
        status = "interrupted"
    node.message = Message(
        id=message_id,
        role=role,
        parts=parts,
        created_at=_time(data.get("create_time")) or default_time,
        status=status,
        model=metadata.get("model_slug") or None,
        provider="chatgpt" if role == "assistant" else None,
        finish_reason=(metadata.get("finish_details") or {}).get("type"),
    )
    return node


def _parts(content: dict[str, Any]) -> list[Part]:
    kind = content.get("content_type")
    if kind == "thoughts":
        texts = [
            f"{t.get('summary', '')}\n{t.get('content', '')}".strip()
            for t in content.get("thoughts") or []
            if isinstance(t, dict)
        ]
        text = "\n\n".join(t for t in texts if t)
        return [ReasoningPart(text=text)] if text else []
    if kind in ("user_editable_context", "reasoning_recap", "model_editable_context"):
        return []
    chunks: list[str] = []
    for part in content.get("parts") or []:
        if isinstance(part, str):
            chunks.append(part)
        elif isinstance(part, dict):
            pointer = part.get("asset_pointer") or part.get("content_type") or "attachment"
            chunks.append(f"[Image not imported: {pointer}]")
    for key in ("text", "result"):
        if isinstance(content.get(key), str):
            chunks.append(content[key])
    text = "\n".join(c for c in chunks if c.strip())
    return [TextPart(text=text)] if text.strip() else []


def _pair_result(
    message: Message, nodes: dict[str, _Node], parent: str | None, kept: dict[str, Message]
) -> Message:
    """Point a tool result at the call it answers; without one it becomes a note."""
    result = message.parts[0]
    assert isinstance(result, ToolResultPart)
    current, seen = parent, set()
    while current is not None and current not in seen and current in nodes:
        seen.add(current)
        node = nodes[current]
        if node.call_id is not None and current in kept:
            part = result.model_copy(update={"tool_call_id": node.call_id})
            return message.model_copy(update={"parts": [part]})
        if node.message is not None and node.message.role == "user":
            break
        current = node.parent
    text = f"[{result.name} output]\n{result.content}"
    return message.model_copy(update={"role": "assistant", "parts": [TextPart(text=text)]})


def _kept_ancestor(
    nodes: dict[str, _Node], start: str | None, kept: dict[str, Message]
) -> str | None:
    current, seen = start, set()
    while current is not None and current not in seen and current in nodes:
        seen.add(current)
        if current in kept:
            return kept[current].id
        current = nodes[current].parent
    return None


def _topological(nodes: dict[str, _Node]) -> list[str]:
    """Parents before children; siblings by time (then id), so branch numbers follow age."""
    children: dict[str | None, list[str]] = {}
    for nid, node in nodes.items():
        parent = node.parent if node.parent in nodes else None
        children.setdefault(parent, []).append(nid)

    def key(nid: str) -> tuple[float, str]:
        message = nodes[nid].message
        return (message.created_at if message else 0.0, nid)

    order: list[str] = []
    seen: set[str] = set()
    # Roots first; then nodes only reachable through a cycle (a damaged file).
    for start in [*sorted(children.get(None, []), key=key), *nodes]:
        stack = [start]
        while stack:
            nid = stack.pop()
            if nid in seen:
                continue
            seen.add(nid)
            order.append(nid)
            stack.extend(sorted(children.get(nid, []), key=key, reverse=True))
    return order


def _plain(parts: list[Part]) -> str:
    return "\n".join(p.text for p in parts if isinstance(p, TextPart | ReasoningPart))


def _time(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in text)[:80]
