"""JSON arguments and results made readable: long string values cut short (the panel
and the chat offer "Show all" to see them whole)."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QCoreApplication


def shorten(value: Any, limit: int) -> tuple[Any, bool]:
    """``value`` with every string longer than ``limit`` cut short; whether any was."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value, False
        more = QCoreApplication.translate("ToolCallsInline", "{count} more characters").format(
            count=len(value) - limit)
        return f"{value[:limit]}… [{more}]", True
    if isinstance(value, dict):
        pairs = [(k, shorten(v, limit)) for k, v in value.items()]
        return {k: v for k, (v, _) in pairs}, any(cut for _, (_, cut) in pairs)
    if isinstance(value, list):
        items = [shorten(v, limit) for v in value]
        return [v for v, _ in items], any(cut for _, cut in items)
    return value, False


def shorten_json(text: str, limit: int, *, indent: int | None = None) -> tuple[str, bool]:
    """JSON ``text`` with long values cut short (re-indented by ``indent``); other text
    cut at ``5 * limit`` characters. Whether anything was cut."""
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        whole = 5 * limit
        return (text, False) if len(text) <= whole else (text[:whole] + " …", True)
    shortened, cut = shorten(data, limit)
    return json.dumps(shortened, indent=indent, ensure_ascii=False), cut
