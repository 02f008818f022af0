"""Keeping a connected server's lists current, and telling observers.

Servers announce changes in two ways, depending on the protocol era:

- 2025 sessions send ``notifications/tools/list_changed`` (and the prompts,
  resources and ``resources/updated`` ones) on their own; resource updates need
  ``resources/subscribe`` first.
- 2026-07-28 sessions send them only on a ``subscriptions/listen`` stream, which
  :meth:`LiveLists.run` keeps open (and reopens with the new filter when the
  resource subscriptions change, or after the stream is lost, refetching then
  since nothing is replayed).

Either way the notifications reach :meth:`LiveLists.handle` (the SDK tees listen
events to the message handler), which lists the kind again and tells observers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import warnings
from collections.abc import Callable, Coroutine
from typing import Any

import mcp_types as mt
import msgspec
from mcp import Client
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from desktop.tools.mcp.listing import LIST_KINDS, ListKind, ServerLists, refresh

log = logging.getLogger(__name__)


class ListChanged(msgspec.Struct, frozen=True):
    """``server``'s list of ``kind`` was listed again (after the server said it changed)."""

    server: str
    kind: ListKind


class ResourceChanged(msgspec.Struct, frozen=True):
    """A subscribed resource of ``server`` changed: read it again to refresh it."""

    server: str
    uri: str


McpEvent = ListChanged | ResourceChanged
McpObserver = Callable[[McpEvent], None]

_NOTIFICATION_KINDS: dict[type, ListKind] = {
    mt.ToolListChangedNotification: "tools",
    mt.PromptListChangedNotification: "prompts",
    mt.ResourceListChangedNotification: "resources",
}


class LiveLists:
    def __init__(self, server: str, lists: ServerLists, tell: McpObserver) -> None:
        self.server = server
        self.lists = lists
        self._tell = tell
        self.subscriptions: set[str] = set()  # resource URIs to hear about
        self.active: frozenset[str] = frozenset()  # those the server has acknowledged
        self._active_changed = asyncio.Event()
        self._client: Client | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._relisten = asyncio.Event()
        self._locks = {kind: asyncio.Lock() for kind in LIST_KINDS}

    async def handle(self, message: object) -> None:
        """The SDK's message handler: server notifications (and transport errors)."""
        kind = _NOTIFICATION_KINDS.get(type(message))
        if kind is not None:
            self._spawn(self._refresh(kind))
        elif isinstance(message, mt.ResourceUpdatedNotification):
            self._tell(ResourceChanged(self.server, str(message.params.uri)))
        elif isinstance(message, Exception):
            log.debug("MCP server %s: transport error: %s", self.server, message)

    def subscribe(self, uri: str) -> None:
        if uri not in self.subscriptions:
            self.subscriptions.add(uri)
            self._changed_subscriptions(subscribe=uri)

    def unsubscribe(self, uri: str) -> None:
        if uri in self.subscriptions:
            self.subscriptions.discard(uri)
            self._changed_subscriptions(unsubscribe=uri)

    async def wait_active(self, uri: str, timeout_s: float) -> bool:
        """Wait until the server acknowledged the subscription to ``uri``."""
        try:
            async with asyncio.timeout(timeout_s):
                while uri not in self.active:
                    await self._active_changed.wait()
        except TimeoutError:
            return False
        return True

    def _set_active(self, uris: frozenset[str]) -> None:
        self.active = uris
        changed, self._active_changed = self._active_changed, asyncio.Event()
        changed.set()

    def _changed_subscriptions(self, subscribe: str = "", unsubscribe: str = "") -> None:
        client = self._client
        if client is None:
            return  # applied when the next connection starts listening
        if _listens(client):
            self._relisten.set()
        elif _can_subscribe(client):
            self._spawn(self._legacy_subscription(client, subscribe, unsubscribe))

    async def run(self, client: Client) -> None:
        """Listen for changes while ``client`` is connected (cancelled when it ends)."""
        self._client = client
        try:
            if not _listens(client):
                if _can_subscribe(client):
                    for uri in sorted(self.subscriptions):
                        await self._legacy_subscription(client, uri, "")
                await asyncio.Event().wait()  # the notifications come by themselves
            while True:
                await self._listen_once(client)
        finally:
            self._client = None
            self._set_active(frozenset())
            for task in list(self._tasks):
                task.cancel()

    async def _listen_once(self, client: Client) -> None:
        self._relisten.clear()
        wanted = frozenset(self.subscriptions)
        try:
            async with client.listen(
                tools_list_changed=True, prompts_list_changed=True,
                resources_list_changed=True,
                resource_subscriptions=sorted(wanted),
            ) as subscription:
                self._set_active(wanted & frozenset(subscription.honored.resource_subscriptions
                                                    or ()))
                # Events arrive through handle(); this task only keeps the stream open
                # until the filter changes or the stream ends.
                drain = asyncio.ensure_future(_drain(subscription))
                relisten = asyncio.ensure_future(self._relisten.wait())
                try:
                    await asyncio.wait({drain, relisten}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    drain.cancel()
                    relisten.cancel()
                if drain.done() and not drain.cancelled() and drain.exception() is not None:
                    raise drain.exception()  # type: ignore[misc]
                if not self._relisten.is_set():
                    await asyncio.Event().wait()  # closed gracefully: nothing more to hear
        except (SubscriptionLost, MCPError, TimeoutError) as exc:
            log.info("MCP server %s: listen stream ended (%s); listening again", self.server, exc)
            for kind in LIST_KINDS:  # nothing is replayed: what changed meanwhile is unknown
                await self._refresh(kind)
        except ListenNotSupportedError:
            await asyncio.Event().wait()

    async def _refresh(self, kind: ListKind) -> None:
        client = self._client
        if client is None:
            return
        async with self._locks[kind]:
            try:
                await refresh(client, self.lists, kind)
            except Exception as exc:
                log.warning("MCP server %s: listing %s again failed: %s", self.server, kind, exc)
                return
        self._tell(ListChanged(self.server, kind))

    async def _legacy_subscription(self, client: Client, subscribe: str,
                                   unsubscribe: str) -> None:
        # Deprecated only for 2026-07-28 sessions; this path serves the 2025 ones.
        with contextlib.suppress(MCPError), warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            if subscribe:
                await client.session.subscribe_resource(subscribe)
                self._set_active(self.active | {subscribe})
            if unsubscribe:
                self._set_active(self.active - {unsubscribe})
                await client.session.unsubscribe_resource(unsubscribe)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


async def _drain(subscription: object) -> None:
    async for _event in subscription:  # type: ignore[attr-defined]
        pass


def _listens(client: Client) -> bool:
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return client.protocol_version in MODERN_PROTOCOL_VERSIONS


def _can_subscribe(client: Client) -> bool:
    resources = client.server_capabilities.resources
    return bool(resources is not None and resources.subscribe)
