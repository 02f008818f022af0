"""One HTTP request of a target, with its failures turned into :class:`SyncError`."""

from __future__ import annotations

from collections.abc import Collection, Mapping

import httpx

from desktop.sync.targets.base import status_error, transport_error

TIMEOUT = httpx.Timeout(60.0, connect=15.0)


def new_client(auth: httpx.Auth | None) -> httpx.Client:
    # Proxies from the environment apply, as they do for every request the app makes.
    return httpx.Client(auth=auth, timeout=TIMEOUT, follow_redirects=False)


def request(
    client: httpx.Client,
    description: str,
    method: str,
    url: str,
    action: str,
    *,
    ok: Collection[int],
    content: bytes | None = None,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, str] | None = None,
) -> httpx.Response:
    """Send one request and read the whole answer; a status not in ``ok`` raises."""
    try:
        response = client.request(
            method, url, content=content, headers=headers, params=params
        )
    except httpx.HTTPError as exc:
        raise transport_error(description, exc, action) from exc
    if response.status_code not in ok:
        raise status_error(description, response, action)
    return response
