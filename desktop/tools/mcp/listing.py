"""What a server offers besides calls: its tools, prompts, resources and resource
templates, listed page by page.

Only the kinds its capabilities announce are asked for (a server that announces only
resources is never sent ``tools/list``), and a list the server does not implement
(``-32601 Method not found``, common for ``resources/templates/list``) is an empty
list, not a broken server: the specification makes every list optional."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

import mcp_types as mt
import msgspec
from mcp import Client
from mcp.shared.exceptions import MCPError

ListKind = Literal["tools", "prompts", "resources"]
LIST_KINDS: tuple[ListKind, ...] = ("tools", "prompts", "resources")
MAX_PAGES = 50  # a server whose cursor never ends cannot hang a listing

_Item = TypeVar("_Item")


class ServerLists(msgspec.Struct):
    """The latest listing of one server (replaced as a whole when it changes)."""

    tools: list[mt.Tool] = msgspec.field(default_factory=list)
    prompts: list[mt.Prompt] = msgspec.field(default_factory=list)
    resources: list[mt.Resource] = msgspec.field(default_factory=list)
    templates: list[mt.ResourceTemplate] = msgspec.field(default_factory=list)

    def clear(self) -> None:
        """Nothing known (the server wants a sign-in: its last lists are not offered)."""
        self.tools, self.prompts, self.resources, self.templates = [], [], [], []


async def _pages(fetch: Callable[[str | None], Awaitable[Any]],
                 items: Callable[[Any], list[_Item]]) -> list[_Item]:
    out: list[_Item] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        try:
            page = await fetch(cursor)
        except MCPError as exc:
            if exc.code == mt.METHOD_NOT_FOUND:  # an optional list it does not have
                return out
            raise
        out += items(page)
        cursor = page.next_cursor
        if not cursor:
            break
    return out


async def list_tools(client: Client) -> list[mt.Tool]:
    if client.server_capabilities.tools is None:
        return []
    return await _pages(lambda c: client.list_tools(cursor=c, cache_mode="bypass"),
                        lambda page: list(page.tools))


async def list_prompts(client: Client) -> list[mt.Prompt]:
    if client.server_capabilities.prompts is None:
        return []
    return await _pages(lambda c: client.list_prompts(cursor=c, cache_mode="bypass"),
                        lambda page: list(page.prompts))


async def list_resources(client: Client) -> list[mt.Resource]:
    if client.server_capabilities.resources is None:
        return []
    return await _pages(lambda c: client.list_resources(cursor=c, cache_mode="bypass"),
                        lambda page: list(page.resources))


async def list_templates(client: Client) -> list[mt.ResourceTemplate]:
    if client.server_capabilities.resources is None:
        return []
    return await _pages(
        lambda c: client.list_resource_templates(cursor=c, cache_mode="bypass"),
        lambda page: list(page.resource_templates))


async def refresh(client: Client, lists: ServerLists, kind: ListKind) -> None:
    """List ``kind`` again into ``lists``."""
    if kind == "tools":
        lists.tools = await list_tools(client)
    elif kind == "prompts":
        lists.prompts = await list_prompts(client)
    else:
        lists.resources = await list_resources(client)
        lists.templates = await list_templates(client)


async def list_everything(client: Client) -> ServerLists:
    lists = ServerLists()
    for kind in LIST_KINDS:
        await refresh(client, lists, kind)
    return lists
