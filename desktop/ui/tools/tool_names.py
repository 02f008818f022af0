"""A tool's name as people read it: "Read file" for the built-in ``read_file`` (the
tool's :attr:`~desktop.tools.registry.Tool.title`, translated), an MCP tool's own name
as its server gave it. Either way with bidi controls and invisible characters made
visible (a name ``read\\u202efdp.exe`` must not read "readexe.pdf")."""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from desktop import knowledge as knowledge_bases
from desktop import skills as agent_skills
from desktop.tools.builtins import builtin_registry, web_search
from desktop.tools.builtins.remember import Remember
from desktop.ui.plain_text import shown

# The built-in tools' titles, for the translators (a test checks they match the tools)
TITLES = (
    QT_TRANSLATE_NOOP("ToolNames", "Read file"),
    QT_TRANSLATE_NOOP("ToolNames", "List folder"),
    QT_TRANSLATE_NOOP("ToolNames", "Search files"),
    QT_TRANSLATE_NOOP("ToolNames", "Write file"),
    QT_TRANSLATE_NOOP("ToolNames", "Create file"),
    QT_TRANSLATE_NOOP("ToolNames", "Edit file"),
    QT_TRANSLATE_NOOP("ToolNames", "Run command"),
    QT_TRANSLATE_NOOP("ToolNames", "Fetch web page"),
    QT_TRANSLATE_NOOP("ToolNames", "Search the web"),
    QT_TRANSLATE_NOOP("ToolNames", "Search knowledge"),
    QT_TRANSLATE_NOOP("ToolNames", "Remember"),
    QT_TRANSLATE_NOOP("ToolNames", "Load skill"),
)


@cache
def builtin_titles() -> dict[str, str]:
    """Built-in tool name → English title, from the tools themselves."""
    knowledge_tool, skill_tool = knowledge_bases.tool, agent_skills.tool  # (loaded now)
    titles = {tool.name: tool.title for tool in builtin_registry() if tool.title}
    titles[web_search.NAME] = web_search.TITLE
    titles[knowledge_tool.NAME] = knowledge_tool.TITLE
    titles[Remember.name] = Remember.title
    titles[skill_tool.NAME] = skill_tool.TITLE
    return titles


def display_name(name: str, source: str = "builtin") -> str:
    """``name`` for people: a built-in tool's translated title, else the name itself
    (``source``: "builtin" or the MCP server's name; an unknown name stays as sent)."""
    title = builtin_titles().get(name) if source == "builtin" else None
    if title:
        return QCoreApplication.translate("ToolNames", title)
    return shown(name)


def names_text(names: list[str]) -> str:
    """Several tools, in a line: "Read file, Run command"."""
    return ", ".join(dict.fromkeys(display_name(n) for n in names))
