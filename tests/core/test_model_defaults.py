"""The pydantic models' list fields default to ``[]`` (not ``default_factory=list``:
pydantic asks ``inspect.signature(list)`` for a factory when the class is made, which
parses its text signature with ``tokenize``, ~0.3 ms a field and ~3 ms for the first
on the window's way to its first answer). Each instance still gets a list of its own."""

from __future__ import annotations

import ast
from pathlib import Path

from desktop.core.messages import Message, SourcesPart
from desktop.core.settings import AppSettings
from desktop.tools.mcp.config import McpServerConfig

ROOT = Path(__file__).resolve().parents[2]


def test_each_instance_gets_its_own_list() -> None:
    first, second = Message(role="user"), Message(role="user")
    first.parts.append(SourcesPart())
    assert second.parts == []
    assert first.parts[0].sources is not SourcesPart().sources
    one, other = AppSettings(), AppSettings()
    one.mcp_servers.append({"name": "x"})
    assert other.mcp_servers == []
    config = McpServerConfig(name="x", command="y")
    config.args.append("--z")
    assert McpServerConfig(name="x", command="y").args == []


def test_no_model_field_defaults_through_a_list_factory() -> None:
    sources = {path: path.read_text(encoding="utf-8")
               for path in sorted((ROOT / "desktop").rglob("*.py"))}
    found = [f"{path.relative_to(ROOT)}:{node.lineno}"
             for path, source in sources.items() if "default_factory" in source
             for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Field"
             and any(k.arg == "default_factory" and isinstance(k.value, ast.Name)
                     and k.value.id == "list" for k in node.keywords)]
    assert not found, "use `= []` (pydantic copies it for each instance): " + ", ".join(found)
