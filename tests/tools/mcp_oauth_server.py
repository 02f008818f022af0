"""An MCP server protected by OAuth 2.1, with its own authorization server, for the
sign-in tests; written with the official SDK (MCPServer + its auth routes).

The authorization server approves every request at once (no person): its
``/authorize`` endpoint redirects straight back to the client's loopback
``redirect_uri`` with a code. It serves protected-resource metadata (RFC 9728),
authorization-server metadata (RFC 8414), dynamic client registration (RFC 7591),
PKCE-checked code exchange and refresh, and revocation.

Run ``python mcp_oauth_server.py [sse]``: serves Streamable HTTP on ``/mcp`` (or
legacy SSE on ``/sse``) on a free 127.0.0.1 port, printed on stdout once the socket
listens. ``python mcp_oauth_server.py split`` puts the authorization server on a port of
its own (another origin, as most real deployments do): the MCP server on the printed
port only checks tokens and names the authorization server in its protected-resource
metadata. Access tokens live ``MCP_OAUTH_TOKEN_S`` seconds (default 3600).
With ``MCP_OAUTH_CLIENT="<id> <secret> <redirect URI>"`` in the environment
dynamic registration is off and only that client, registered beforehand (HTTP Basic
with its secret at the token endpoint), can sign in. Every grant is logged to stderr
as ``grant <kind> <client>``; the ``auth_stats`` tool returns the counts.
"""

from __future__ import annotations

# (run as a program while a test keeps a warm copy of it, the copy serves: mcp_warm.py)
import mcp_warm  # noqa: F401  # isort: skip
import os
import secrets
import socket
import sys
import time
from collections import Counter

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    IdentityAssertionParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

COUNTS: Counter[str] = Counter()


class ApprovingProvider:
    """An in-memory authorization server that says yes to everyone."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        _count("register", client_info.client_id)

    async def authorize(self, client: OAuthClientInformationFull,
                        params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300,
            client_id=client.client_id or "", code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource)
        _count("authorize", client.client_id or "")
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull,
                                      authorization_code: str) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        _count("code", client.client_id or "")
        return self._issue(client.client_id or "", authorization_code.scopes,
                           authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull,
                                 refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client: OAuthClientInformationFull,
                                     refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        _count("refresh", client.client_id or "")
        return self._issue(client.client_id or "", scopes or refresh_token.scopes,
                           refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)
        _count("revoke", token.client_id)

    async def exchange_identity_assertion(self, client: OAuthClientInformationFull,
                                          params: IdentityAssertionParams) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "identity assertions are not accepted")

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        lifetime = int(os.environ.get("MCP_OAUTH_TOKEN_S", "3600"))
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                          expires_at=int(time.time()) + lifetime,
                                          resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes,
                                             resource=resource)
        return OAuthToken(access_token=access, expires_in=lifetime, refresh_token=refresh,
                          scope=" ".join(scopes) or None)


def _count(kind: str, client_id: str) -> None:
    COUNTS[kind] += 1
    print(f"grant {kind} {client_id}", file=sys.stderr, flush=True)


def build(port: int, path: str = "/mcp",
          preset: OAuthClientInformationFull | None = None) -> MCPServer:
    base = f"http://127.0.0.1:{port}"
    auth = AuthSettings(
        issuer_url=base, resource_server_url=f"{base}{path}", validate_token_resource=False,
        required_scopes=["mcp"],
        client_registration_options=ClientRegistrationOptions(
            enabled=preset is None, valid_scopes=["mcp"], default_scopes=["mcp"]),
        revocation_options=RevocationOptions(enabled=True))
    provider = ApprovingProvider()
    if preset is not None and preset.client_id:
        provider.clients[preset.client_id] = preset
    server = MCPServer("guarded", version="1.0", auth=auth, auth_server_provider=provider)

    @server.tool(description="Say who is signed in.")
    def whoami() -> str:
        return "a signed-in user"

    @server.tool(description="How many registrations, authorizations and grants were made.")
    def auth_stats() -> str:
        return " ".join(f"{k}={COUNTS[k]}" for k in ("register", "authorize", "code", "refresh"))

    return server


class SharedVerifier:
    """The resource server's check of a token: valid and unexpired at the authorization
    server (one process here; a real pair would use introspection or signed tokens)."""

    def __init__(self, provider: ApprovingProvider) -> None:
        self.provider = provider

    async def verify_token(self, token: str) -> AccessToken | None:
        found = await self.provider.load_access_token(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found


def _bound() -> tuple[socket.socket, int]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock, int(sock.getsockname()[1])


def split() -> None:
    """The authorization server and the MCP server on two origins."""
    import asyncio

    import uvicorn

    (as_sock, as_port), (rs_sock, rs_port) = _bound(), _bound()
    issuer = f"http://127.0.0.1:{as_port}"
    authority = build(as_port)  # serves the authorization server's routes
    provider = authority._auth_server_provider
    assert isinstance(provider, ApprovingProvider)
    resource = MCPServer("guarded", version="1.0", token_verifier=SharedVerifier(provider),
                         auth=AuthSettings(issuer_url=issuer, required_scopes=["mcp"],
                                           resource_server_url=f"http://127.0.0.1:{rs_port}/mcp",
                                           validate_token_resource=False))

    @resource.tool(description="Say who is signed in.")
    def whoami() -> str:
        return "a signed-in user"

    @resource.tool(description="How many registrations, authorizations and grants were made.")
    def auth_stats() -> str:
        return " ".join(f"{k}={COUNTS[k]}" for k in ("register", "authorize", "code", "refresh"))

    servers = [uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
               for app in (authority.streamable_http_app(), resource.streamable_http_app())]
    print(rs_port, flush=True)

    async def both() -> None:
        await asyncio.gather(servers[0].serve(sockets=[as_sock]),
                             servers[1].serve(sockets=[rs_sock]))

    asyncio.run(both())


def main() -> None:
    import uvicorn

    if sys.argv[1:] == ["split"]:
        split()
        return

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    sse = sys.argv[1:] == ["sse"]
    preset = None
    if os.environ.get("MCP_OAUTH_CLIENT"):
        client_id, secret, redirect = os.environ["MCP_OAUTH_CLIENT"].split()
        preset = OAuthClientInformationFull(
            client_id=client_id, client_secret=secret, redirect_uris=[AnyUrl(redirect)],
            token_endpoint_auth_method="client_secret_basic", scope="mcp",
            grant_types=["authorization_code", "refresh_token"])
    server = build(port, "/sse" if sse else "/mcp", preset)
    app = server.sse_app() if sse else server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(port, flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
