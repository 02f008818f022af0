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
- :class:`LoopbackRedirect` (loopback_redirect.py): the redirect listener on
  127.0.0.1 (RFC 8252), on the port the client was registered with when it is free,
  else a new one (the client is then registered again);
- :class:`PreRegistered`: a client registered by hand (Client ID, optional secret and
  callback port) for servers that offer no dynamic registration;
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
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

import httpx2
import msgspec
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.exceptions import OAuthRegistrationError, OAuthTokenError
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
)
from pydantic import AnyUrl, ValidationError

from desktop.providers.http_clients import make_async_client
from desktop.tools.mcp.config import McpServerConfig
from desktop.tools.mcp.loopback_redirect import (
    CALLBACK_PATH,
    SIGN_IN_TIMEOUT_S,
    LoopbackRedirect,
    SignInTimedOut,
)

log = logging.getLogger(__name__)

Browser = Callable[[str], Awaitable[None]]  # opens the authorization URL for a person
PLACEHOLDER_REDIRECT = f"http://127.0.0.1{CALLBACK_PATH}"  # background: never used to redirect



class SignInNeeded(Exception):
    """The server wants a sign-in and nobody can be asked now (a background start)."""

    def __init__(self, server: str) -> None:
        super().__init__(f"MCP server {server!r} needs sign-in")
        self.server = server


class ClientRejected(Exception):
    """The authorization server does not know the stored client (RFC 6749 §4.1.2.1: it
    answers the authorization request itself instead of redirecting): the client must
    be registered again."""

    def __init__(self, server: str, status: int) -> None:
        super().__init__(f"the authorization server of {server!r} does not know this app "
                         f"(HTTP {status}); registering it again")
        self.server = server


def _direct_client() -> httpx2.AsyncClient:
    """The client of a sign-in made outside a connection: the environment's proxy."""
    return cast("httpx2.AsyncClient",
                make_async_client(http=httpx2, timeout=httpx2.Timeout(15.0)))


async def authorization_refused(url: str, clients: Callable[[], httpx2.AsyncClient]) -> int | None:
    """The status with which the authorization server refuses ``url`` outright (an
    unknown ``client_id`` or ``redirect_uri``), or None when it goes on to a sign-in page
    or redirect (or cannot be asked: then the browser finds out)."""
    try:
        async with clients() as client:
            response = await client.get(url, follow_redirects=False)
    except httpx2.HTTPError:
        return None
    if response.status_code in (400, 401, 403) and "location" not in response.headers:
        return response.status_code
    return None


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
        self.preset: OAuthClientInformationFull | None = None  # a client registered by hand
        # Where the tokens came from (the authorization server's metadata, RFC 8414),
        # saved with them: told by the provider that signs in.
        self.issued_by: Callable[[], dict[str, Any] | None] = lambda: None

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

    async def issuer(self) -> dict[str, Any] | None:
        """The authorization server that issued the stored tokens: ``{"url", "metadata"}``
        (its RFC 8414 metadata, whose token endpoint a refresh goes to)."""
        raw = await self._load("tokens")
        found = raw.get("issuer") if raw else None
        return found if isinstance(found, dict) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires = time.time() + float(tokens.expires_in) if tokens.expires_in else None
        self._redact(tokens.access_token, tokens.refresh_token)
        self._known = True
        data = {"token": tokens.model_dump(mode="json", exclude_none=True),
                "expires_at": expires, "url": self.url}
        issuer = self.issued_by() or await self.issuer()  # a refresh keeps what it knew
        if issuer is not None:
            data["issuer"] = issuer
        await self._save("tokens", data)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        if self.preset is not None:
            return self.preset
        raw = await self._load("client")
        if raw is None:
            return None
        raw.pop("assista_url", None)
        try:
            return OAuthClientInformationFull.model_validate(raw)
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if self.preset is not None:  # (the SDK registers none while one is given)
            return
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
    """The SDK's provider, told what it only knows of tokens it received itself in this
    process: when stored tokens expire (else an expired token would go out and a 401
    would ask the person again instead of refreshing silently), and which authorization
    server issued them (else, after a restart, a refresh goes to ``/token`` on the MCP
    server itself: a 404 wherever the authorization server is a separate one)."""

    def __init__(self, server_url: str, client_metadata: OAuthClientMetadata,
                 storage: KeyringTokenStorage, **kwargs: Any) -> None:
        super().__init__(server_url, client_metadata, storage, **kwargs)
        self._keyring_storage = storage
        storage.issued_by = self._issuer

    def _issuer(self) -> dict[str, Any] | None:
        metadata = self.context.oauth_metadata
        if metadata is None:
            return None
        return {"url": self.context.auth_server_url,
                "metadata": metadata.model_dump(mode="json", exclude_none=True)}

    async def _initialize(self) -> None:
        await super()._initialize()
        self.context.token_expiry_time = await self._keyring_storage.expires_at()
        issuer = await self._keyring_storage.issuer()
        if issuer is not None and self.context.oauth_metadata is None:
            try:
                self.context.oauth_metadata = OAuthMetadata.model_validate(issuer["metadata"])
            except (ValidationError, KeyError, TypeError):
                log.warning("MCP server %s: the stored authorization server is unreadable",
                            self._keyring_storage.server)
                return
            url = issuer.get("url")
            self.context.auth_server_url = url if isinstance(url, str) else None


class PreRegistered(msgspec.Struct, frozen=True):
    """A client registered by hand with the authorization server (for servers that
    offer no dynamic registration): its id, its secret if it has one (sent with HTTP
    Basic, the method every server supports), and the loopback port registered in its
    redirect ``http://127.0.0.1:<port>/callback`` (0: any port, as RFC 8252 allows)."""

    client_id: str
    client_secret: str = ""
    port: int = 0

    @property
    def redirect(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}" if self.port else PLACEHOLDER_REDIRECT

    def info(self, redirect: str) -> OAuthClientInformationFull:
        return OAuthClientInformationFull(
            client_id=self.client_id, client_secret=self.client_secret or None,
            redirect_uris=[AnyUrl(redirect)], response_types=["code"],
            grant_types=["authorization_code", "refresh_token"],
            token_endpoint_auth_method="client_secret_basic" if self.client_secret else "none")


class SignIn(msgspec.Struct, weakref=True):
    """How one server signs in; ``interactive`` is set for the attempt a person started."""

    server: str
    url: str
    storage: KeyringTokenStorage
    browser: Browser | None = None
    interactive: bool = False
    client_name: str = "Assista Desktop"
    listener: LoopbackRedirect | None = None  # while a person is being asked
    client: PreRegistered | None = None  # None: registered by the app (RFC 7591)
    wait_s: float = SIGN_IN_TIMEOUT_S  # how long the browser may take to come back
    #: Makes the HTTP client that asks the authorization server before the browser opens
    #: (set by the connection: through the app's proxy).
    http_client: Callable[[], httpx2.AsyncClient] = _direct_client
    client_rejected: bool = False  # the last attempt found the stored client unknown
    _check_client: bool = False

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
        by_hand = self.client
        if by_hand is not None:
            self.storage.preset = by_hand.info(by_hand.redirect)
        stored = await self.storage.get_client_info()
        # A client stored from an earlier sign-in may be unknown to the authorization
        # server by now: it is checked before the browser opens (a fresh one is not).
        self._check_client = stored is not None and by_hand is None
        if stored is not None and stored.redirect_uris:
            redirect = str(stored.redirect_uris[0])
        if interactive:
            listener = self.listener = LoopbackRedirect()
            redirect = await listener.start(urlsplit(redirect).port or 0,
                                            strict=bool(by_hand and by_hand.port))
            if by_hand is not None:
                self.storage.preset = by_hand.info(redirect)
            elif stored is not None and redirect not in map(str, stored.redirect_uris or []):
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
            status = (await authorization_refused(url, self.http_client)
                      if self._check_client else None)
            if status is not None:  # the person would only see an error page, and we wait
                self.client_rejected = True
                raise ClientRejected(self.server, status)
            log.info("MCP server %s: opening the browser to sign in", self.server)
            await self.browser(url)

        return open_browser

    def _callback(self, listener: LoopbackRedirect | None,
                  ) -> Callable[[], Awaitable[AuthorizationCodeResult]]:
        async def wait_for_code() -> AuthorizationCodeResult:
            if listener is None:
                raise SignInNeeded(self.server)
            return await listener.wait(self.wait_s)

        return wait_for_code


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it holds (exception groups, causes), each once."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
        stack += [e for e in (current.__cause__, current.__context__) if e is not None]


def find_sign_in_needed(exc: BaseException) -> SignInNeeded | None:
    """The :class:`SignInNeeded` inside ``exc`` (exception groups, causes), if any."""
    return next((e for e in _chain(exc) if isinstance(e, SignInNeeded)), None)


def sign_in_problem(exc: BaseException) -> str | None:
    """What the user can do about a sign-in that cannot succeed as set up (trying
    again would not help), if that is what ``exc`` holds."""
    for current in _chain(exc):
        if isinstance(current, ClientRejected | SignInTimedOut):
            return str(current)
        if isinstance(current, OAuthRegistrationError):
            return ("its sign-in does not let apps register themselves "
                    f"({one_line_text(str(current))}): enter the Client ID (and secret) "
                    "of an app registered with it")
        if isinstance(current, OAuthTokenError):  # e.g. a wrong client secret
            return (f"its sign-in refused the app ({one_line_text(str(current))}); "
                    "check the Client ID and secret if one is set")
    return None


def one_line_text(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


class OAuthSetup(msgspec.Struct, weakref=True):
    """Where sign-ins are kept and how a person is sent to sign in (``browser``:
    None when nobody can be asked, e.g. ``assista ask`` without a terminal)."""

    secrets: SecretSlots
    browser: Browser | None = None
    wait_s: float = SIGN_IN_TIMEOUT_S

    def for_server(self, config: McpServerConfig) -> SignIn:
        client_id = config.oauth_client_id.strip()
        client = PreRegistered(client_id, config.oauth_client_secret,
                               config.oauth_redirect_port) if client_id else None
        return SignIn(config.name, config.url,
                      KeyringTokenStorage(self.secrets, config.name, config.url),
                      self.browser, client=client, wait_s=self.wait_s)
