"""A small JSON request of a provider (a model list, a model's details), by hand.

The reply is read with a size limit (:mod:`desktop.providers.limits`); a non-2xx
status, a transport failure or a reply that is not JSON is a ProviderError.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import httpx

from desktop.core.errors import ProviderError
from desktop.providers.http_errors import server_detail
from desktop.providers.limits import MAX_JSON_REPLY, ReplyTooLarge, read_limited
from desktop.providers.retry import RetryPolicy, is_retryable_status, send_with_retry

if TYPE_CHECKING:
    from desktop.providers.http_base import HttpProvider

__all__ = ["get_json"]


async def get_json(
    provider: HttpProvider,
    path: str,
    params: Mapping[str, str] | None = None,
    body: dict[str, Any] | None = None,
    *,
    retry: RetryPolicy | None = None,
    timeout: float | None = None,
) -> Any:
    """The decoded JSON answer of a small GET (a POST with ``body``); ProviderError."""
    try:
        request = provider._build_request("GET" if body is None else "POST", path, body,
                                      params, timeout=timeout)  # fmt: skip
        response = await send_with_retry(provider._get_client(), request,
                                         retry or provider.retry, on_retry=provider._on_retry)
        try:  # read by hand: a reply of any size must not be held whole
            status = response.status_code
            if not 200 <= status < 300:
                raw = await provider._read_body(response)
                message, error_code = provider._status_message(response, raw)
                detail, wait = server_detail(response, raw, provider._secrets)
                raise ProviderError(message, provider=provider.name, status=status,
                                    server_code=error_code, detail=detail, retry_after=wait,
                                    retryable=is_retryable_status(status))
            raw = await read_limited(response, MAX_JSON_REPLY)
        finally:
            await response.aclose()
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        message, code = provider._describe(exc, streaming=False)
        raise ProviderError(message, provider=provider.name, server_code=code,
                            retryable=True) from None
    except ReplyTooLarge as exc:
        raise ProviderError(str(exc), provider=provider.name,
                            server_code="reply_too_large") from None
    try:
        return json.loads(raw)
    except ValueError:
        where = f"{provider.base_url}{provider.path_prefix}{path}"
        raise ProviderError(f"{where} did not return JSON; check the base URL",
                            provider=provider.name, code="bad_response") from None  # fmt: skip
