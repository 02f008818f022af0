"""Looks for a newer version: at most once a day, never in portable mode or when
switched off in Preferences.

The feed is read with httpx through the app's proxy, with a timeout and a size cap
(a release list is a few hundred kilobytes; anything over :data:`MAX_FEED_BYTES`
is refused rather than read). Every failure is a :class:`FeedError` with a sentence
for the log; a failed check is not retried before the next day. Qt-free.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import httpx
import msgspec

from desktop.providers.http_clients import make_async_client
from desktop.updates.feed import DEFAULT_FEED_URL, FeedError, Release, newest, parse_feed

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy
    from desktop.core.services import SettingsSource

log = logging.getLogger(__name__)

MAX_FEED_BYTES = 2 * 1024 * 1024
TIMEOUT_S = 15.0
CHECK_INTERVAL_S = 24 * 3600.0
LAST_CHECK_KEY = "updates.last_check"  # settings table: when the feed was last read


class CheckResult(msgspec.Struct, frozen=True):
    """What an update check found: a newer release or none, and the feed it read."""

    release: Release | None  # a newer version, or None: this one is the newest
    feed_url: str


async def read_feed(url: str, client: httpx.AsyncClient, *,
                    limit: int = MAX_FEED_BYTES) -> bytes:
    """The feed's bytes (raises FeedError: unreachable, an HTTP error, too large)."""
    headers = {"Accept": "application/vnd.github+json", "User-Agent": "Assista-Desktop"}
    try:
        async with client.stream("GET", url, headers=headers, timeout=TIMEOUT_S,
                                 follow_redirects=True) as response:
            if response.status_code != 200:
                raise FeedError(f"the release feed answered HTTP {response.status_code}")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise FeedError(f"the release feed is larger than {limit // 1024} KB")
            data = bytearray()
            async for chunk in response.aiter_bytes():
                data += chunk
                if len(data) > limit:
                    raise FeedError(f"the release feed is larger than {limit // 1024} KB")
            return bytes(data)
    except httpx.HTTPError as exc:
        raise FeedError(f"the release feed could not be reached ({type(exc).__name__}: "
                        f"{exc})") from exc


async def check(url: str, current: str, client: httpx.AsyncClient, *,
                system: str | None = None, machine: str | None = None) -> CheckResult:
    """Read the feed and find a release newer than ``current``."""
    if not url.lower().startswith(("https://", "http://")):
        raise FeedError("the release feed must be an http(s) URL")
    releases = parse_feed(await read_feed(url, client), system=system, machine=machine)
    return CheckResult(newest(releases, current), url)


class ValueStore(Protocol):
    """Where the time of the last check is kept (the settings store's own values)."""

    def get_value(self, key: str, default: Any = None) -> Any: ...

    def set_value(self, key: str, value: Any) -> None: ...


class UpdateChecker:
    """When to check and with what: the settings, the data folder, the clock.

    ``portable``: the app runs from a data folder given on the command line (never
    checks); ``proxy``: the app's proxy, read per check."""

    def __init__(self, settings: SettingsSource, values: ValueStore, current: str, *,
                 portable: bool, proxy: Callable[[], Proxy],
                 clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.values = values
        self.current = current
        self.portable = portable
        self.proxy = proxy
        self.clock = clock

    def enabled(self) -> bool:
        return self.settings.current.check_updates and not self.portable

    def feed_url(self) -> str:
        return self.settings.current.update_feed_url.strip() or DEFAULT_FEED_URL

    def due(self) -> bool:
        """Enabled, and the last check is a day old (or in the future: a clock that
        was set back does not stop checks for good)."""
        if not self.enabled():
            return False
        last = self.values.get_value(LAST_CHECK_KEY, 0.0)
        last = float(last) if isinstance(last, int | float) else 0.0
        now = self.clock()
        return not (0 < last <= now < last + CHECK_INTERVAL_S)

    async def run(self) -> CheckResult | None:
        """Check if due; None when not due or the check failed (logged)."""
        if not self.due():
            return None
        self.values.set_value(LAST_CHECK_KEY, self.clock())
        return await self.check_now()

    async def check_now(self) -> CheckResult | None:
        url = self.feed_url()
        try:
            async with make_async_client(timeout=5.0, connect_timeout=5.0,
                                         proxy=self.proxy()) as client:
                result = await check(url, self.current, client)
        except FeedError as exc:
            log.warning("update check failed: %s", exc)
            return None
        if result.release is not None:
            log.info("version %s is available (running %s)", result.release.version,
                     self.current)
        return result
