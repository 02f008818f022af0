"""One HTTP request of a target, with its failures turned into :class:`SyncError` and
its answer read up to a limit (a broken server or proxy cannot fill the memory)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

import httpx
import msgspec

from desktop.providers.http_clients import make_client
from desktop.sync.targets.base import (
    ERROR_BODY_LIMIT,
    status_error,
    too_large,
    transport_error,
)

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy

TIMEOUT_S = 60.0
CONNECT_TIMEOUT_S = 15.0


def new_client(auth: httpx.Auth | None, proxy: Proxy | None) -> httpx.Client:
    """The app's HTTP client: the proxy of Preferences (``None``: the environment's)."""
    return make_client(timeout=TIMEOUT_S, connect_timeout=CONNECT_TIMEOUT_S, proxy=proxy,
                       auth=auth)


class Reply(msgspec.Struct, frozen=True):
    """A target's HTTP answer: status, body (read up to the limit) and headers."""

    status: int
    body: bytes
    headers: httpx.Headers


def request(
    client: httpx.Client,
    description: str,
    method: str,
    url: str,
    action: str,
    *,
    ok: Collection[int],
    limit: int = ERROR_BODY_LIMIT,
    content: bytes | None = None,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, str] | None = None,
) -> Reply:
    """Send one request and read its answer, at most ``limit`` bytes of it (more raises,
    before reading on when the server announces the size); a status not in ``ok``
    raises."""
    built = client.build_request(method, url, content=content, headers=headers, params=params)
    try:
        response = client.send(built, stream=True)
    except httpx.HTTPError as exc:
        raise transport_error(description, exc, action) from exc
    try:
        if response.status_code not in ok:
            _drain(response)
            raise status_error(description, response.status_code, action, len(content or b""))
        body = b"" if method == "HEAD" else _read(response, limit, description, action)
        return Reply(response.status_code, body, response.headers)
    except httpx.HTTPError as exc:
        raise transport_error(description, exc, action) from exc
    finally:
        response.close()


def _read(response: httpx.Response, limit: int, description: str, action: str) -> bytes:
    announced = response.headers.get("Content-Length", "")
    if announced.isdigit() and int(announced) > limit:
        raise too_large(description, action, limit)
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > limit:
            raise too_large(description, action, limit)
    return bytes(body)


def _drain(response: httpx.Response) -> None:
    """Read a refusal's body (a little of it) so the connection can be reused."""
    read = 0
    for chunk in response.iter_bytes():
        read += len(chunk)
        if read > ERROR_BODY_LIMIT:
            break
