"""Projects (Qt-free): chats grouped with shared instructions, files, knowledge bases,
a workspace folder and a default model (:class:`ProjectService`); what a project adds
to its chats' system prompt is :func:`desktop.projects.context.project_context`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.lazy import lazy_names

if TYPE_CHECKING:
    from desktop.projects.context import project_context

#: Loaded when first asked for (what a project adds to a prompt, at a chat's first turn
#: in a project).
_LAZY: dict[str, str] = {
    "project_context": "desktop.projects.context",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "project_context",
]
