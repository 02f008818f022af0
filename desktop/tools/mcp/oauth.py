"""Signing in to remote MCP servers: OAuth 2.1 as the MCP authorization spec says,
through the official SDK's :class:`~mcp.client.auth.OAuthClientProvider`.

The SDK does the protocol: on a 401 it discovers the protected-resource metadata
(RFC 9728) and the authorization server's (RFC 8414), registers a client (RFC 7591)
when none is stored, sends the user to the authorization endpoint with PKCE (S256)
and the resource indicator (RFC 8707), exchanges the code, and refreshes expired
tokens. This module supplies what the SDK leaves to the app:

- :class:`KeyringTokenStorage`: tokens and the registered client in the secret
  store (the keyring) under ``mcp:<server>:oauth:*``, with the tokens' expiry time,
  so an expired token is refreshed silently after a restart too;
- :class:`LoopbackRedirect`: the redirect listener on 127.0.0.1 (RFC 8252), on the
  port the client was registered with when it is free, else a new one (the client
  is then registered again);
- :class:`SignIn`: whether a person can be asked now. Connections started in the
  background are never interactive: a server that needs sign-in raises
  :class:`SignInNeeded` and the window shows "Sign in"; the user's click (or
  ``assista mcp login``) makes the next attempt interactive, opening the browser
  through the ``browser`` callable the caller gives.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl, ValidationError

from desktop.tools.mcp.config import McpServerConfig

log = logging.getLogger(__name__)

Browser = Callable[[str], Awaitable[None]]  # opens the authorization URL for a person
CALLBACK_PATH = "/callback"
PLACEHOLDER_REDIRECT = f"http://127.0.0.1{CALLBACK_PATH}"  # background: never used to redirect
SIGN_IN_TIMEOUT_S = 600.0

DONE_PAGE = (
    "<!doctype html><meta charset=utf-8><title>Assista</title>"
    "<p style='font:16px sans-serif;margin:3em'>{text}</p>"
)


class SignInNeeded(Exception):
    """The server wants a sign-in and nobody can be asked now (a background start)."""

    def __init__(self, server: str) -> None:
        super().__init__(f"MCP server {server!r} needs sign-in")
        self.server = server


class SecretSlots(Protocol):
    def get(self, provider_id: str) -> str | None: ...

    def set(self, provider_id: str, key: str) -> None: ...

    def delete(self, provider_id: str) -> None: ...


def _slot(server: str, what: str) -> str:
    return f"mcp:{server}:oauth:{what}"


class KeyringTokenStorage:
    """The SDK's ``TokenStorage`` on the secret store (calls run off the event loop:
    a keyring may block on D-Bus or an unlock prompt). What is stored names the
    server's URL: when the URL is changed, the old tokens are not sent to the new one."""

    def __init__(self, secrets: SecretSlots, server: str, url: str = "") -> None:
        self.secrets = secrets
        self.server = server
        self.url = url
        self._known: bool | None = None  # whether tokens are stored, once read

    async def get_tokens(self) -> OAuthToken | None:
        raw = await self._load("tokens")
        self._known = raw is not None
        if raw is None:
            return None
        try:
            return OAuthToken.model_validate(raw.get("token", {}))
        except ValidationError:
            log.warning("MCP server %s: the stored sign-in is unreadable; signing in again",
                        self.server)
            return None

    async def expires_at(self) -> float | None:
        """When the stored access token expires (epoch seconds), if known."""
        raw = await self._load("tokens")
        value = raw.get("expires_at") if raw else None
        return float(value) if isinstance(value, int | float) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires = time.time() + float(tokens.expires_in) if tokens.expires_in else None
        self._redact(tokens.access_token, tokens.refresh_token)
        self._known = True
        await self._save("tokens", {"token": tokens.model_dump(mode="json", exclude_none=True),
                                    "expires_at": expires, "url": self.url})

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        raw = await self._load("client")
        if raw is None:
            return None
        raw.pop("assista_url", None)
        try:
            return OAuthClientInformationFull.model_validate(raw)
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._redact(client_info.client_secret)
        await self._save("client", client_info.model_dump(mode="json", exclude_none=True)
                         | {"assista_url": self.url})

    async def forget_client(self) -> None:
        await asyncio.to_thread(self.secrets.delete, _slot(self.server, "client"))

    def signed_in(self) -> bool:
        """Whether tokens are stored (reads the keyring the first time only)."""
        if self._known is None:
            self._known = self._parse(self.secrets.get(_slot(self.server, "tokens"))) is not None
        return self._known

    def sign_out(self) -> None:
        """Forget the tokens and the registered client (blocking)."""
        self._known = False
        for what in ("tokens", "client"):
            self.secrets.delete(_slot(self.server, what))

    def _redact(self, *values: str | None) -> None:
        redactor = getattr(self.secrets, "redactor", None)
        for value in values:
            if value and redactor is not None:
                redactor.add(value)

    async def _load(self, what: str) -> dict[str, Any] | None:
        text = await asyncio.to_thread(self.secrets.get, _slot(self.server, what))
        return self._parse(text)

    def _parse(self, text: str | None) -> dict[str, Any] | None:
        """The stored JSON, if it is for this server's URL."""
        try:
            data = json.loads(text) if text else None
        except json.JSONDecodeError:
            return None
        if not isinstance(data, dict):
            return None
        stored_url = data.get("url", data.get("assista_url", self.url))
        return data if not self.url or stored_url == self.url else None

    async def _save(self, what: str, data: dict[str, Any]) -> None:
        text = json.dumps(data, separators=(",", ":"))
        await asyncio.to_thread(self.secrets.set, _slot(self.server, what), text)


class LoopbackRedirect:
    """Listens on 127.0.0.1 for the browser coming back with the code (RFC 8252 §7.3)."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None
        self.port = 0

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def start(self, preferred_port: int = 0) -> str:
        """Listen on ``preferred_port`` if free, else on any port; the redirect URI."""
        self._result = asyncio.get_running_loop().create_future()
        for port in dict.fromkeys((preferred_port, 0)):
            try:
                self._server = await asyncio.start_server(self._serve, "127.0.0.1", port)
                break
            except OSError:
                if port == 0:
                    raise
        assert self._server is not None
        self.port = self._server.sockets[0].getsockname()[1]
        return self.redirect_uri

    async def wait(self, timeout_s: float = SIGN_IN_TIMEOUT_S) -> AuthorizationCodeResult:
        assert self._result is not None, "start() first"
        try:
            async with asyncio.timeout(timeout_s):
                return await asyncio.shield(self._result)
        except TimeoutError:
            raise TimeoutError(f"no sign-in within {timeout_s:g} seconds") from None

    def abort(self, reason: str) -> None:
        """End :meth:`wait` now (the person gave up, or the connection stops)."""
        if self._result is not None and not self._result.done():
            self._result.set_exception(PermissionError(reason))

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(30):
                head = await reader.readuntil(b"\r\n\r\n")
            target = head.split(b"\r\n", 1)[0].split(b" ")[1].decode("ascii", "replace")
            status, text = self._answer(target)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, IndexError, TimeoutError):
            status, text = "400 Bad Request", "Bad request."
        body = DONE_PAGE.format(text=text).encode()
        writer.write(f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()

    def _answer(self, target: str) -> tuple[str, str]:
        parts = urlsplit(target)
        if parts.path != CALLBACK_PATH:
            return "404 Not Found", "Not found."
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        result = self._result
        if "error" in query:
            reason = query.get("error_description") or query["error"]
            if result is not None and not result.done():
                result.set_exception(PermissionError(f"sign-in refused: {reason}"))
            return "200 OK", "Sign-in was refused. You can close this window."
        if not query.get("code"):
            return "400 Bad Request", "No authorization code."
        if result is not None and not result.done():
            result.set_result(AuthorizationCodeResult(
                code=query["code"], state=query.get("state"), iss=query.get("iss")))
        return "200 OK", "Signed in. You can close this window and return to Assista."


class _SignInOn401(httpx2.Auth):
    """Passes requests through; a 401 (the server wants a token) is :class:`SignInNeeded`."""

    def __init__(self, server: str) -> None:
        self.server = server

    async def async_auth_flow(self, request: httpx2.Request,
                              ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        response = yield request
        if response.status_code == 401:
            raise SignInNeeded(self.server)


class _StoredExpiryProvider(OAuthClientProvider):
    """The SDK's provider, told when stored tokens expire: it only knows the expiry of
    tokens it received itself, so after a restart an expired token would go out
    and a 401 would ask the person again instead of refreshing silently."""

    def __init__(self, server_url: str, client_metadata: OAuthClientMetadata,
                 storage: KeyringTokenStorage, **kwargs: Any) -> None:
        super().__init__(server_url, client_metadata, storage, **kwargs)
        self._keyring_storage = storage

    async def _initialize(self) -> None:
        await super()._initialize()
        self.context.token_expiry_time = await self._keyring_storage.expires_at()


@dataclass
class SignIn:
    """How one server signs in; ``interactive`` is set for the attempt a person started."""

    server: str
    url: str
    storage: KeyringTokenStorage
    browser: Browser | None = None
    interactive: bool = False
    client_name: str = "Assista Desktop"
    listener: LoopbackRedirect | None = None  # while a person is being asked

    def abort(self) -> None:
        """Stop waiting for the browser (the connection is stopping)."""
        if self.listener is not None:
            self.listener.abort("sign-in cancelled")

    @contextlib.asynccontextmanager
    async def auth(self) -> AsyncIterator[httpx2.Auth]:
        """The httpx auth for one connection attempt (with a redirect listener when a
        person can be asked)."""
        interactive = self.interactive and self.browser is not None
        if not interactive and await self.storage.get_tokens() is None:
            # Nothing to refresh and nobody to ask: a 401 means "Sign in" (and no
            # client is registered for a redirect nobody would receive).
            yield _SignInOn401(self.server)
            return
        listener: LoopbackRedirect | None = None
        redirect = PLACEHOLDER_REDIRECT
        stored = await self.storage.get_client_info()
        if stored is not None and stored.redirect_uris:
            redirect = str(stored.redirect_uris[0])
        if interactive:
            listener = self.listener = LoopbackRedirect()
            redirect = await listener.start(urlsplit(redirect).port or 0)
            if stored is not None and redirect not in {str(u) for u in stored.redirect_uris or []}:
                await self.storage.forget_client()  # registered for another port
        metadata = OAuthClientMetadata(
            client_name=self.client_name, redirect_uris=[AnyUrl(redirect)],
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
            token_endpoint_auth_method="none")
        try:
            yield _StoredExpiryProvider(
                self.url, metadata, storage=self.storage,
                redirect_handler=self._redirect(listener),
                callback_handler=self._callback(listener))
        finally:
            if listener is not None:
                self.listener = None
                await listener.close()

    def _redirect(self, listener: LoopbackRedirect | None) -> Callable[[str], Awaitable[None]]:
        async def open_browser(url: str) -> None:
            if listener is None or self.browser is None:
                raise SignInNeeded(self.server)
            log.info("MCP server %s: opening the browser to sign in", self.server)
            await self.browser(url)

        return open_browser

    def _callback(self, listener: LoopbackRedirect | None,
                  ) -> Callable[[], Awaitable[AuthorizationCodeResult]]:
        async def wait_for_code() -> AuthorizationCodeResult:
            if listener is None:
                raise SignInNeeded(self.server)
            return await listener.wait()

        return wait_for_code


def find_sign_in_needed(exc: BaseException) -> SignInNeeded | None:
    """The :class:`SignInNeeded` inside ``exc`` (exception groups, causes), if any."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, SignInNeeded):
            return current
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                stack.append(linked)
    return None


@dataclass
class OAuthSetup:
    """Where sign-ins are kept and how a person is sent to sign in (``browser``:
    None when nobody can be asked, e.g. ``assista ask`` without a terminal)."""

    secrets: SecretSlots
    browser: Browser | None = None

    def for_server(self, config: McpServerConfig) -> SignIn:
        return SignIn(config.name, config.url,
                      KeyringTokenStorage(self.secrets, config.name, config.url),
                      self.browser)
