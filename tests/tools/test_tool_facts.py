"""Facts about a tool live on the tool: what its grants are scoped by (``scope``) and
whether it needs a workspace folder (``needs_workspace``). The grants and a chat's
tool list read them from the registered tools, so a new built-in tool is its module
plus its line in ``builtin_registry`` (no table keyed by its name elsewhere)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.app import AppContext
from desktop.chat.chat_tools import ChatTools
from desktop.tools import builtins, grant_scopes
from desktop.tools.grant_scopes import always_needs_scope, scope_kind
from desktop.tools.registry import Tool, ToolContext, ToolRegistry

BUILTIN_SCOPES = {"write_file": "path", "create_file": "path", "edit_file": "path",
                  "run_command": "command", "fetch_url": "host"}
BUILTIN_WORKSPACE = {"read_file", "list_directory", "search_files", "write_file",
                     "create_file", "edit_file", "run_command"}


async def _noop(args: dict[str, Any], ctx: ToolContext) -> Any:
    return {}


def ping_host_tool() -> Tool:
    """A new built-in tool, as a newcomer would write it."""
    return Tool(name="ping_host", title="Ping host", description="Ping a host.",
                parameters={"type": "object", "properties": {"host": {"type": "string"}}},
                handler=_noop, read_only=False, scope="host", needs_workspace=True)


@pytest.fixture
def with_ping(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    original = builtins.builtin_registry

    def registry() -> ToolRegistry:  # builtin_registry with the new tool's one line
        tools = original()
        tools.register(ping_host_tool())
        return tools

    monkeypatch.setattr(builtins, "builtin_registry", registry)
    grant_scopes._builtin_scopes.cache_clear()
    yield
    grant_scopes._builtin_scopes.cache_clear()


def test_the_built_in_tools_say_their_facts() -> None:
    tools = builtins.builtin_registry()
    assert {t.name: t.scope for t in tools if t.scope} == BUILTIN_SCOPES
    assert {t.name for t in tools if t.needs_workspace} == BUILTIN_WORKSPACE
    assert {name: scope_kind(name) for name in BUILTIN_SCOPES} == BUILTIN_SCOPES
    assert scope_kind("read_file") is None and not always_needs_scope("read_file")
    assert always_needs_scope("fetch_url") and not always_needs_scope("fetch_url", "server")


@pytest.mark.usefixtures("with_ping")
def test_a_new_tools_grants_are_scoped_by_what_it_says() -> None:
    assert scope_kind("ping_host") == "host"
    assert always_needs_scope("ping_host")


def test_a_chat_without_a_folder_is_not_offered_tools_that_need_one(tmp_path: Path) -> None:
    ctx = AppContext.open(tmp_path / "data", environ={}, log_to_stderr=False)
    try:
        ctx.registry.register(ping_host_tool())
        settings = ctx.settings.current.model_copy(
            update={"enabled_tools": ["read_file", "fetch_url", "ping_host"]})
        tools = ChatTools(ctx)
        assert tools.available(settings, None) == ["fetch_url"]
        assert tools.available(settings, str(tmp_path)) == ["read_file", "fetch_url",
                                                           "ping_host"]
    finally:
        ctx.close()
