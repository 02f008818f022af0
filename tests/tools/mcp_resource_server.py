"""An MCP server that only checks tokens: its authorization server is a third-party
one (tests/tools/oauth_servers/), named in its protected-resource metadata (RFC 9728).

Run ``python mcp_resource_server.py ISSUER [SCOPE]``: serves Streamable HTTP on ``/mcp`` on
a free 127.0.0.1 port, printed on stdout once the socket listens. A request needs a JWT
access token signed with a key the issuer publishes (its ``jwks_uri`` from OpenID
discovery), issued by ISSUER, unexpired, and, when it names an audience, for this
server's URL; with SCOPE, the token must carry that scope (which the metadata then
announces). Written with the official SDK (``MCPServer`` with a token verifier).
"""

from __future__ import annotations

# (run as a program while a test keeps a warm copy of it, the copy serves: mcp_warm.py)
import mcp_warm  # noqa: F401  # isort: skip
import socket
import sys
from typing import Any

import httpx
import jwt
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer


class JwtVerifier:
    """Checks a JWT against the issuer's published keys (fetched again when a token
    names a key not seen yet, e.g. after the issuer restarted with a new one)."""

    def __init__(self, issuer: str, audience: str) -> None:
        self.issuer = issuer
        self.audience = audience
        self.keys: jwt.PyJWKSet | None = None
        self.seen: list[dict[str, Any]] = []  # the claims of every accepted token

    async def _load_keys(self) -> jwt.PyJWKSet:
        async with httpx.AsyncClient(trust_env=False, timeout=10) as client:
            discovery = (await client.get(f"{self.issuer}/.well-known/openid-configuration")
                         ).json()
            return jwt.PyJWKSet.from_dict((await client.get(discovery["jwks_uri"])).json())

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            kid = jwt.get_unverified_header(token).get("kid")
            if self.keys is None or kid not in {k.key_id for k in self.keys.keys}:
                self.keys = await self._load_keys()
            key = next(k for k in self.keys.keys if k.key_id == kid)
            claims = jwt.decode(token, key=key, algorithms=[key.algorithm_name or "ES256"],
                                issuer=self.issuer, options={"verify_aud": False,
                                                             "require": ["exp", "iss"]})
        except (jwt.PyJWTError, StopIteration, httpx.HTTPError, KeyError, ValueError):
            return None
        audience = claims.get("aud")
        if audience is not None and self.audience not in (
                audience if isinstance(audience, list) else [audience]):
            return None
        self.seen.append(claims)
        return AccessToken(token=token, client_id=str(claims.get("client_id", "")),
                           scopes=str(claims.get("scope", "")).split(),
                           expires_at=int(claims["exp"]),
                           resource=self.audience)


def main() -> None:
    import uvicorn

    issuer, scope = sys.argv[1].rstrip("/"), sys.argv[2:3]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    verifier = JwtVerifier(issuer, url)
    server = MCPServer("protected", version="1.0", token_verifier=verifier,
                       auth=AuthSettings(issuer_url=issuer, resource_server_url=url,
                                         required_scopes=scope or None,
                                         validate_token_resource=False))  # (checked above)

    @server.tool(description="Say who is signed in (the token's subject).")
    def whoami() -> str:
        return str(verifier.seen[-1].get("sub")) if verifier.seen else "nobody"

    config = uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on")
    print(port, flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
