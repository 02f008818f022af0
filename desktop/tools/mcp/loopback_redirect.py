"""The loopback redirect of a sign-in (RFC 8252 §7.3): the browser comes back to
``http://127.0.0.1:<port>/callback`` with the authorization code, which the sign-in
waits for (or for the refusal, the person giving up, or the time limit)."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import parse_qs, urlsplit

from mcp.shared.auth import AuthorizationCodeResult

CALLBACK_PATH = "/callback"
SIGN_IN_TIMEOUT_S = 600.0


class SignInTimedOut(TimeoutError):
    """Nobody came back from the browser in time (trying again by itself cannot help)."""

    def __init__(self, timeout_s: float) -> None:
        super().__init__(f"no sign-in within {timeout_s:g} seconds")

DONE_PAGE = (
    "<!doctype html><meta charset=utf-8><title>Assista</title>"
    "<p style='font:16px sans-serif;margin:3em'>{text}</p>"
)


class LoopbackRedirect:
    """Listens on 127.0.0.1 for the browser coming back with the code (RFC 8252 §7.3)."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None
        self.port = 0

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def start(self, preferred_port: int = 0, *, strict: bool = False) -> str:
        """Listen on ``preferred_port`` if free, else (unless ``strict``: the port is the
        one registered by hand) on any port; the redirect URI."""
        self._result = asyncio.get_running_loop().create_future()
        for port in (preferred_port,) if strict else dict.fromkeys((preferred_port, 0)):
            try:
                self._server = await asyncio.start_server(self._serve, "127.0.0.1", port)
                break
            except OSError as exc:
                if strict:
                    raise OSError(f"the sign-in callback port {port} is in use") from exc
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
            raise SignInTimedOut(timeout_s) from None

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
