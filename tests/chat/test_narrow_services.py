"""The chat layer's parts are handed the services they use, not the app context (issue 26
item 1). Checked on the source: only the chat layer's assembly takes the whole
:class:`~desktop.chat.app_context.ChatContext`, and no chat module reaches into a context
it was handed (``something.ctx``)."""

from __future__ import annotations

import ast
from pathlib import Path

CHAT = Path(__file__).resolve().parents[2] / "desktop" / "chat"

#: The modules (besides app_context.py, which defines it) that take ChatContext, and why:
#: the chat service (the chat layer's assembly, which hands each part its services) and
#: the chats' tools (the tools' own assembly: the executor, the MCP servers, the registry
#: catalog and the search tools each need other app services).
TAKE_THE_CONTEXT = {"service.py", "chat_tools.py"}


def _modules() -> list[Path]:
    return sorted(CHAT.rglob("*.py"))


def _names(tree: ast.Module) -> set[str]:
    found = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found.update(alias.name for alias in node.names)
    return found


def test_only_the_assembly_takes_the_whole_context() -> None:
    naming = {path.relative_to(CHAT).as_posix() for path in _modules()
              if path.name != "app_context.py"
              and "ChatContext" in _names(ast.parse(path.read_text(encoding="utf-8")))}
    assert naming == TAKE_THE_CONTEXT


def test_no_chat_module_reaches_into_a_context() -> None:
    reaching = [f"{path.relative_to(CHAT).as_posix()}:{node.lineno}"
                for path in _modules()
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.Attribute) and node.attr == "ctx"]
    assert not reaching, "reaches into a context (take the service instead): " + \
        ", ".join(reaching)
