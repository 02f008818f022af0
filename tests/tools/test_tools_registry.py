"""Tool definitions and the registry."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from desktop.core.provider import ToolSpec
from desktop.tools import Tool, ToolContext, ToolRegistry, builtin_registry

SCHEMA: dict[str, Any] = {"type": "object", "properties": {"path": {"type": "string"}}}


async def handler(args: dict[str, Any], ctx: ToolContext) -> Any:
    return args


def writes(args: Mapping[str, Any]) -> Sequence[str]:
    return [args["path"]]


def test_register_get_names_specs() -> None:
    registry = ToolRegistry()
    a = Tool("a", "Tool A", SCHEMA, handler)
    b = Tool("b", "Tool B", SCHEMA, handler, read_only=False, writes_paths=writes)
    registry.register(a)
    registry.register(b)
    assert registry.get("a") is a
    assert registry.get("zzz") is None
    assert registry.names() == ["a", "b"]
    assert "a" in registry and "zzz" not in registry
    assert len(registry) == 2
    assert list(registry) == [a, b]
    assert registry.specs() == [ToolSpec("a", "Tool A", SCHEMA), ToolSpec("b", "Tool B", SCHEMA)]
    assert [s.name for s in registry.specs({"b"})] == ["b"]
    assert registry.specs(set()) == []
    assert b.paths_written({"path": "x.txt"}) == ["x.txt"]
    assert a.paths_written({"path": "x.txt"}) == []


def test_specs_are_copies() -> None:
    tool = Tool("a", "Tool A", SCHEMA, handler)
    spec = tool.spec()
    spec.parameters["properties"]["evil"] = {}
    assert "evil" not in tool.parameters["properties"]


def test_duplicates_are_refused() -> None:
    registry = ToolRegistry([Tool("a", "A", SCHEMA, handler)])
    with pytest.raises(ValueError, match="already registered"):
        registry.register(Tool("a", "A again", SCHEMA, handler))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "has space"}, "Invalid tool name"),
        ({"name": ""}, "Invalid tool name"),
        ({"parameters": {"type": "string"}}, "type object"),
        ({"parameters": {"type": "object", "properties": {"x": {"type": 5}}}}, "invalid"),
        ({"writes_paths": writes}, "read-only"),
    ],
)
def test_bad_definitions_are_refused(kwargs: dict[str, Any], message: str) -> None:
    base: dict[str, Any] = {
        "name": "ok",
        "description": "d",
        "parameters": SCHEMA,
        "handler": handler,
    }
    with pytest.raises(ValueError, match=message):
        Tool(**(base | kwargs))


def test_builtin_registry_is_fresh_each_time() -> None:
    first, second = builtin_registry(), builtin_registry()
    assert first is not second
    assert first.names() == [
        "read_file",
        "list_directory",
        "search_files",
        "write_file",
        "create_file",
        "edit_file",
        "run_command",
        "fetch_url",
    ]
    for spec in first.specs():
        assert spec.description
        assert spec.parameters["type"] == "object"
        assert spec.parameters["additionalProperties"] is False
    tool = first.get("read_file")
    assert tool is not None and tool.read_only
    policies = {t.name: t.policy for t in first}
    assert policies == {
        "read_file": "allow",
        "list_directory": "allow",
        "search_files": "allow",
        "write_file": "ask",
        "create_file": "ask",
        "edit_file": "ask",
        "run_command": "ask",
        "fetch_url": "ask",
    }
