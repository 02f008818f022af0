"""Projects (Qt-free): chats grouped with shared instructions, files, knowledge bases,
a workspace folder and a default model (:class:`ProjectService`); what a project adds
to its chats' system prompt is :func:`desktop.projects.context.project_context`."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.projects.context import project_context

#: Loaded when first asked for (what a project adds to a prompt, at a chat's first turn
#: in a project).
_LAZY: dict[str, str] = {
    "project_context": "desktop.projects.context",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "project_context",
]
