"""One MCP server connection, kept alive by a supervisor task.

:class:`McpConnection` starts the server (or connects to its URL, through the ``proxy``
given, never the environment's; a sign-in may be asked) with the SDK's :class:`mcp.Client`,
lists its tools and serves calls. A supervisor task owns the SDK's context managers. A
dropped connection restarts with backoff (``backoff_s * 2**n``, at most ``max_backoff_s``)
up to ``max_failures`` failures in a row. Every wait is bounded: startup by
``startup_timeout_s`` (plus minutes while a person signs in), calls by their timeout,
shutdown by the SDK's bounded termination (close stdin, SIGTERM, SIGKILL).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Literal

import anyio
import httpx2
import mcp_types as mt
from mcp import Client
from mcp.shared.exceptions import MCPError

from desktop import __version__
from desktop.core.errors import ToolError
from desktop.core.proxy import Proxy
from desktop.tools.mcp.config import McpServerConfig
from desktop.tools.mcp.listing import ServerLists, list_everything
from desktop.tools.mcp.live_lists import LiveLists, McpEvent, McpObserver
from desktop.tools.mcp.loopback_redirect import SIGN_IN_TIMEOUT_S
from desktop.tools.mcp.oauth import OAuthSetup, find_sign_in_needed, sign_in_problem
from desktop.tools.mcp.progress import AsyncProgress, ProgressFn
from desktop.tools.mcp.server_requests import (
    Elicitor,
    Sampler,
    elicitation_callback,
    sampling_callback,
)
from desktop.tools.mcp.stderr import StderrLog
from desktop.tools.mcp.streams import STARTING_MARK, CommandNotFound, one_line
from desktop.tools.mcp.transports import HttpClients, open_transport
from desktop.tools.mcp.url_required import with_url_prerequisites

log = logging.getLogger(__name__)

State = Literal["stopped", "starting", "running", "restarting", "failed"]
STABLE_AFTER_S = 60.0  # a connection up this long resets the failure count
LAST_WORDS = 3  # stderr lines of a server that exited at start-up, shown with the error


class McpConnection:
    def __init__(
        self,
        config: McpServerConfig,
        *,
        path: Callable[[], str] | None = None,
        backoff_s: float = 0.5, max_backoff_s: float = 30.0, max_failures: int = 5,
        stderr_lines: int = 500,
        proxy: Proxy | None = None,
        elicitor: Elicitor | None = None,
        sampler: Sampler | None = None,
        oauth: OAuthSetup | None = None,
    ) -> None:
        """``proxy``: the route over HTTP (None: httpx2's defaults, from the environment).
        ``elicitor``/``sampler`` answer the server's questions (None: declined and not
        advertised). ``oauth``: where sign-ins are kept and how a person signs in."""
        self.config = config
        self.proxy = proxy
        self._path = path or (lambda: os.environ.get("PATH", ""))
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.max_failures = max_failures
        self.stderr = StderrLog(stderr_lines)
        self.state: State = "stopped"
        self.last_error: str | None = None
        self.elicitor = elicitor
        self.sampler = sampler
        self.sign_in = oauth.for_server(config) if oauth and config.transport != "stdio" else None
        if self.sign_in is not None:
            self.sign_in.http_client = lambda: HttpClients(self.proxy)(
                timeout=httpx2.Timeout(15.0))
        self.needs_sign_in = False  # the server wants a sign-in nobody could do yet
        self.lists = ServerLists()
        self.observers: list[McpObserver] = []  # told when a list or resource changes
        self.live = LiveLists(config.name, self.lists, self._tell)
        self._origins: list[str | None] = []  # the chats of the calls in flight
        self.starts = 0  # successful connections (1 + restarts)
        self.on_change: Callable[[McpConnection], None] | None = None
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self.failures = 0  # consecutive failed attempts
        self._stopping = False
        self._wake = asyncio.Event()
        self._changed = asyncio.Event()  # set (and replaced) on every state change
        self._up_since = 0.0

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def tools(self) -> list[mt.Tool]:
        return self.lists.tools

    def _tell(self, event: McpEvent) -> None:
        for observer in list(self.observers):
            try:
                observer(event)
            except Exception:
                log.exception("MCP observer failed")

    def _origin(self) -> str | None:
        """The chat a server request belongs to: that of the newest call in flight (the
        SDK asks outside the call, on its own task)."""
        return self._origins[-1] if self._origins else None

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self) -> bool:
        """Start the supervisor and wait for the first attempt; True if it connected."""
        if self._task is None or self._task.done():
            self._stopping = False
            self.failures = 0
            self._set_state("starting")
            self._task = asyncio.create_task(self._supervise(), name=f"mcp:{self.name}")
        await self._wait_until(
            lambda: self.state in ("running", "failed", "stopped") or self.failures > 0,
            self._startup_s() + 15.0,
        )
        return self.state == "running"

    async def stop(self, timeout_s: float = 15.0) -> None:
        """Disconnect (stop the server process) and end the supervisor."""
        self._stopping = True
        self._wake.set()
        if self.sign_in is not None:
            self.sign_in.abort()  # not waiting for a browser that may never come back
        task, self._task = self._task, None
        if task is None:
            return
        try:
            async with asyncio.timeout(timeout_s):
                await asyncio.shield(task)
        except TimeoutError:
            log.warning("MCP server %s did not stop in %gs; abandoning it", self.name, timeout_s)
            task.cancel()
        except Exception:
            log.exception("MCP server %s failed while stopping", self.name)
        self._set_state("stopped")

    async def wait_ready(self, timeout_s: float) -> bool:
        """Wait until the server is connected (e.g. after a restart)."""
        await self._wait_until(lambda: self.state in ("running", "failed", "stopped"), timeout_s)
        return self.state == "running"

    async def wait_for_state(self, *states: State, timeout_s: float) -> bool:
        """Wait until the connection is in one of ``states``."""
        return await self._wait_until(lambda: self.state in states, timeout_s)

    async def _wait_until(self, done: Callable[[], bool], timeout_s: float) -> bool:
        try:
            async with asyncio.timeout(timeout_s):
                while not done():
                    await self._changed.wait()
        except TimeoutError:
            return False
        return True

    def _set_state(self, state: State, error: str | None = None) -> None:
        same = state == self.state and error is None
        self.state = state
        if error is not None:
            self.last_error = error
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        if self.on_change is not None and not same:
            try:
                self.on_change(self)
            except Exception:
                log.exception("MCP state callback failed")

    def _connection_lost(self) -> None:
        if self._client is not None and not self._stopping:
            log.warning("MCP server %s: connection lost", self.name)
            self._client = None
            self._set_state("restarting")
        self._wake.set()

    async def _supervise(self) -> None:
        while not self._stopping:
            first = self.starts == 0 and self.failures == 0
            self._set_state("starting" if first else "restarting")
            written = self.stderr.total
            try:
                await self._session_once()
            except CommandNotFound as exc:
                self._set_state("failed", str(exc))
                return
            except Exception as exc:
                if find_sign_in_needed(exc) is not None:  # retrying cannot help
                    self.needs_sign_in = True
                    self.lists.clear()  # signed out: no stale tools for the model or the UI
                    self._set_state("failed", "needs sign-in")
                    return
                if (problem := sign_in_problem(exc)) is not None:  # nor here
                    self._set_state("failed", problem)
                    return
                message = await self._with_last_words(one_line(exc), written)
                log.warning("MCP server %s: %s", self.name, message)
                self.last_error = message
            if self._stopping:
                break
            if self._up_since and time.monotonic() - self._up_since >= STABLE_AFTER_S:
                self.failures = 0
            self._up_since = 0.0
            self.failures += 1
            if self.failures > self.max_failures:
                reason = self.last_error or "no reason"
                self._set_state("failed", f"gave up after {self.failures} attempts: {reason}")
                return
            delay = min(self.backoff_s * 2 ** (self.failures - 1), self.max_backoff_s)
            self._set_state("restarting")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._wake.wait()
        self._set_state("stopped")

    async def _with_last_words(self, message: str, written: int) -> str:
        """``message`` and, for a process that exited before it was up, the last lines it
        wrote on stderr: "Connection closed" alone does not say why a server exited."""
        if self.config.transport != "stdio" or self._up_since:
            return message
        if not await asyncio.to_thread(self.stderr.wait_ended, 1.0):
            return message  # still running: the error says what was wrong
        said = [line.strip() for line in self.stderr.since(written)
                if line.strip() and not line.startswith(STARTING_MARK)]
        if not said:
            return message
        for line in said[-20:]:
            log.warning("MCP server %s stderr: %s", self.name, line)
        return f"{message}; it said: {' | '.join(said[-LAST_WORDS:])}"

    async def _session_once(self) -> None:
        self._wake.clear()
        client_info = mt.Implementation(name="assista-desktop", version=__version__)
        with anyio.CancelScope(
            deadline=anyio.current_time() + self._startup_s()
        ) as scope:
            async with Client(
                self._transport(), mode=self.config.protocol, client_info=client_info, cache=None,
                message_handler=self.live.handle, **self._callbacks(),
            ) as client:
                lists = await list_everything(client)
                scope.deadline = math.inf
                self.lists.tools, self.lists.prompts = lists.tools, lists.prompts
                self.lists.resources, self.lists.templates = lists.resources, lists.templates
                live = asyncio.ensure_future(self.live.run(client))
                self._client = client
                self._up_since = time.monotonic()
                self.starts += 1
                self.last_error = None
                self.needs_sign_in = False
                self._set_state("running")
                try:
                    if not self._stopping:
                        await self._wake.wait()
                finally:  # woken, or cancelled by the SDK because the transport failed
                    live.cancel()
                    self._client = None
                    if not self._stopping and self.state == "running":
                        self._set_state("restarting")
        if scope.cancelled_caught:
            raise TimeoutError(f"did not start within {self._startup_s():g} seconds")

    def _startup_s(self) -> float:  # how long a start may take: a person signing in gets minutes
        interactive = self.sign_in is not None and self.sign_in.interactive
        waits = self.sign_in.wait_s if self.sign_in is not None else SIGN_IN_TIMEOUT_S
        return self.config.startup_timeout_s + (waits if interactive else 0.0)

    def _callbacks(self) -> dict[str, Any]:
        callbacks: dict[str, Any] = {}
        if self.elicitor is not None:
            callbacks["elicitation_callback"] = elicitation_callback(
                self.name, self.elicitor, self._origin)
        if self.sampler is not None:
            callbacks["sampling_callback"] = sampling_callback(
                self.name, self.sampler, self._origin)
        return callbacks

    @contextlib.asynccontextmanager
    async def _transport(self) -> AsyncIterator[Any]:
        path = await asyncio.to_thread(self._path) if self.config.transport == "stdio" else ""
        async with open_transport(self.config, path=path, stderr=self.stderr, proxy=self.proxy,
                                  sign_in=self.sign_in, on_end=self._connection_lost) as streams:
            yield streams

    # -- sign-in ------------------------------------------------------------------------

    async def sign_in_now(self) -> bool:
        """Connect with a person at hand (the browser opens if asked); True if connected."""
        if self.sign_in is None:
            return await self.start()
        await self.stop()
        self.sign_in.interactive = True
        self.sign_in.client_rejected = False
        try:
            if await self.start():
                return True
            if not self.sign_in.client_rejected or self.sign_in.client is not None:
                return False
            # The authorization server forgot the app (its registrations were reset):
            # register again (RFC 7591) and send the person to sign in once more.
            log.info("MCP server %s: registering the app again", self.name)
            await self.stop()
            await self.sign_in.storage.forget_client()
            self.sign_in.client_rejected = False
            return await self.start()
        finally:
            self.sign_in.interactive = False

    async def sign_out(self) -> None:
        """Forget the tokens and client, and reconnect (then waiting for a sign-in)."""
        if self.sign_in is None:
            return
        await self.stop()
        await asyncio.to_thread(self.sign_in.storage.sign_out)
        self.needs_sign_in = False
        await self.start()

    def signed_in(self) -> bool:  # tokens stored? (the first call reads the keyring)
        return self.sign_in is not None and self.sign_in.storage.signed_in()

    # -- calls --------------------------------------------------------------------------

    async def call_tool(
        self, name: str, arguments: dict[str, Any], timeout_s: float,
        progress: ProgressFn | None = None, origin: str | None = None,
    ) -> mt.CallToolResult:
        """Call a tool; every failure is a ToolError the model can read. ``progress``
        hears the server's progress notifications. ``origin``: the chat the call is made
        for (a sampling or elicitation request meanwhile belongs to it). Cancelling the
        awaiting task tells the server (the SDK sends ``notifications/cancelled``)."""
        self._origins.append(origin)
        try:
            result: mt.CallToolResult = await self.request(
                lambda client, remaining: with_url_prerequisites(
                    lambda: client.call_tool(
                        name, arguments, read_timeout_seconds=remaining,
                        progress_callback=AsyncProgress(progress) if progress else None),
                    self.name, self.elicitor, origin),
                timeout_s)
            return result
        finally:
            self._origins.remove(origin)

    async def request(self, send: Callable[[Client, float], Awaitable[Any]],
                      timeout_s: float) -> Any:
        """``await send(client, seconds left)`` on the connected client; every failure
        is a ToolError (a sentence for the model or the user)."""
        deadline = time.monotonic() + timeout_s
        client = await self._acquire(deadline)
        remaining = max(deadline - time.monotonic(), 0.1)
        try:
            async with asyncio.timeout(remaining):
                return await send(client, remaining)
        except TimeoutError:
            raise self._timeout(timeout_s) from None
        except MCPError as exc:
            if exc.code == mt.REQUEST_TIMEOUT:
                raise self._timeout(timeout_s) from None
            if exc.code == mt.CONNECTION_CLOSED:
                self._connection_lost()
                raise ToolError(
                    f"The MCP server '{self.name}' stopped or disconnected during the request; "
                    "it is being restarted. You may try again.",
                    code="mcp_server_crashed",
                ) from None
            raise ToolError(
                f"The MCP server '{self.name}' returned an error: {exc.message}",
                code="mcp_error",
            ) from None
        except (
            OSError,
            httpx2.HTTPError,
            anyio.BrokenResourceError,
            anyio.ClosedResourceError,
        ) as exc:
            self._connection_lost()
            raise ToolError(
                f"The connection to MCP server '{self.name}' failed: {one_line(exc)}",
                code="mcp_server_crashed",
            ) from None

    async def _acquire(self, deadline: float) -> Client:
        """The connected client, waiting for a (re)start; one retry after giving up."""
        retried = False
        while True:
            client = self._client
            if client is not None:
                return client
            remaining = deadline - time.monotonic()
            if self._stopping or self.state == "stopped" or remaining <= 0:
                break
            if self.state == "failed":
                if retried:
                    break
                retried = True
                log.info("MCP server %s: trying again for a call", self.name)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(remaining):
                        await self.start()
                continue
            await self._wait_until(
                lambda: self._client is not None or self.state in ("failed", "stopped"),
                remaining,
            )
        detail = f": {self.last_error}" if self.last_error else ""
        raise ToolError(
            f"The MCP server '{self.name}' is not available ({self.state}{detail}).",
            code="mcp_unavailable",
        )

    def _timeout(self, timeout_s: float) -> ToolError:
        return ToolError(
            f"The MCP server '{self.name}' did not answer within {timeout_s:g} seconds.",
            code="timeout",
        )
