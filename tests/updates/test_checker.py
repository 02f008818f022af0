"""The update check against a loopback server serving a GitHub-style releases feed:
newer, same, malformed, unreachable, too large; at most once a day; never portable."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from desktop.app import AppContext
from desktop.providers.http_clients import make_async_client
from desktop.updates.checker import LAST_CHECK_KEY, UpdateChecker, check
from desktop.updates.feed import FeedError, choose_asset, parse_feed
from tests.support import served
from tests.support.openai_server import unused_port
from tests.support.proxy_server import LoopbackProxy

ASSETS = [
    {"name": "assista_1.4.0_amd64.deb", "browser_download_url": "https://dl.example/a.deb"},
    {"name": "Assista-1.4.0-x86_64.AppImage",
     "browser_download_url": "https://dl.example/a.AppImage"},
    {"name": "Assista-1.4.0-arm64.dmg", "browser_download_url": "https://dl.example/arm.dmg"},
    {"name": "Assista-1.4.0-x86_64.dmg", "browser_download_url": "https://dl.example/x86.dmg"},
    {"name": "Assista-1.4.0-setup.exe", "browser_download_url": "https://dl.example/setup.exe"},
]


def release(tag: str, **extra: Any) -> dict[str, Any]:
    return {"tag_name": tag, "name": f"Assista {tag}",
            "body": f"## What's new in {tag}\n\n- faster",
            "html_url": f"https://example.com/releases/{tag}", "draft": False,
            "prerelease": False, "assets": ASSETS, **extra}


class FeedServer:
    """Serves ``body`` at /feed (status ``status``) and counts the requests."""

    def __init__(self) -> None:
        self.body = b""
        self.status = 200
        self.hits = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.hits += 1
                self.send_response(owner.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(owner.body)))
                self.end_headers()
                self.wfile.write(owner.body)

            def log_message(self, *_args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/feed"
        self.thread = served.serve(self.httpd)

    def serve(self, document: object, status: int = 200) -> None:
        self.body = document if isinstance(document, bytes) else json.dumps(document).encode()
        self.status = status

    def close(self) -> None:
        served.stop(self.httpd, self.thread)


@pytest.fixture
def feed() -> Iterator[FeedServer]:
    server = FeedServer()
    yield server
    server.close()


def run_check(url: str, current: str, **kwargs: Any) -> Any:
    async def go() -> Any:
        async with httpx.AsyncClient(trust_env=False) as client:
            return await check(url, current, client, **kwargs)

    return asyncio.run(go())


def test_a_newer_version_is_offered_with_notes_and_this_systems_installer(
    feed: FeedServer,
) -> None:
    feed.serve(release("v1.4.0"))
    result = run_check(feed.url, "1.3.9", system="linux", machine="x86_64")
    found = result.release
    assert str(found.version) == "1.4.0"
    assert found.title == "Assista v1.4.0"
    assert found.notes.startswith("## What's new in v1.4.0")
    assert (found.asset_name, found.download_url) == ("Assista-1.4.0-x86_64.AppImage",
                                                      "https://dl.example/a.AppImage")
    mac = run_check(feed.url, "1.3.9", system="darwin", machine="arm64").release
    assert mac.download_url == "https://dl.example/arm.dmg"
    win = run_check(feed.url, "1.3.9", system="win32", machine="AMD64").release
    assert win.download_url == "https://dl.example/setup.exe"


def test_the_same_or_an_older_version_is_not_offered(feed: FeedServer) -> None:
    feed.serve(release("v1.4.0"))
    assert run_check(feed.url, "1.4.0").release is None
    assert run_check(feed.url, "1.10.0").release is None  # 1.10 > 1.4, not as text


def test_a_list_feed_skips_drafts_and_prereleases(feed: FeedServer) -> None:
    feed.serve([release("v2.0.0rc1", prerelease=True), release("v1.9.0"),
                release("v3.0.0", draft=True), release("nightly"), release("v1.10.0")])
    assert str(run_check(feed.url, "1.2.0").release.version) == "1.10.0"
    # someone running a pre-release is offered the next one
    assert str(run_check(feed.url, "2.0.0b1").release.version) == "2.0.0rc1"


@pytest.mark.parametrize("document", [
    b"<html>not json</html>", b"[]", b"\"v1.0\"", b"{\"message\": \"Not Found\"}",
    b"[1, 2]",
])
def test_a_malformed_feed_is_a_clear_error(feed: FeedServer, document: bytes) -> None:
    feed.serve(document)
    with pytest.raises(FeedError, match="release feed"):
        run_check(feed.url, "1.0.0")


def test_an_http_error_an_unreachable_feed_and_a_huge_feed_are_errors(
    feed: FeedServer,
) -> None:
    feed.serve({"message": "rate limited"}, status=403)
    with pytest.raises(FeedError, match="HTTP 403"):
        run_check(feed.url, "1.0.0")
    with pytest.raises(FeedError, match="could not be reached"):
        run_check(f"http://127.0.0.1:{unused_port()}/feed", "1.0.0")
    feed.serve(b"[" + b" " * (3 * 1024 * 1024) + b"]")
    with pytest.raises(FeedError, match="larger than"):
        run_check(feed.url, "1.0.0")
    with pytest.raises(FeedError, match="http"):
        run_check("file:///etc/passwd", "1.0.0")


def test_unsafe_links_are_never_offered() -> None:
    (found,) = parse_feed(json.dumps(release(
        "v9.0.0", html_url="javascript:alert(1)",
        assets=[{"name": "x-setup.exe", "browser_download_url": "file:///c:/evil.exe"}],
    )).encode(), system="win32", machine="AMD64")
    assert found.download_url == "" and found.page_url == ""
    assert choose_asset([{"name": "Assista-arm64.AppImage", "browser_download_url": "https://x"}],
                        "linux", "x86_64") == ("", "")


def test_the_checker_reads_the_feed_at_most_daily_and_never_portable(
    feed: FeedServer, tmp_path: Path,
) -> None:
    feed.serve(release("v99.0.0"))
    ctx = AppContext.open(tmp_path / "data", environ={}, log_to_stderr=False)
    try:
        ctx.settings.update(update_feed_url=feed.url)
        now = [1_000_000.0]
        portable = UpdateChecker(ctx.settings, ctx.settings_store, "1.0.0",
                                 portable=ctx.paths.portable, proxy=lambda: ctx.proxy)
        assert ctx.paths.portable and not portable.due()  # --data-dir: portable, no checks
        checker = UpdateChecker(ctx.settings, ctx.settings_store, "1.0.0", portable=False,
                                proxy=lambda: ctx.proxy, clock=lambda: now[0])
        assert checker.due()
        result = asyncio.run(checker.run())
        assert result is not None and str(result.release.version) == "99.0.0"
        assert feed.hits == 1
        assert ctx.settings_store.get_value(LAST_CHECK_KEY) == now[0]
        now[0] += 3600
        assert asyncio.run(checker.run()) is None and feed.hits == 1  # not again today
        now[0] += 24 * 3600
        feed.serve(b"broken")
        assert asyncio.run(checker.run()) is None and feed.hits == 2  # failed: logged
        now[0] += 25 * 3600
        ctx.settings.update(check_updates=False)
        assert not checker.due()
    finally:
        ctx.close()


def test_the_check_goes_through_the_proxy_of_preferences(
    feed: FeedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The checker's client comes from the app's client factory: the proxy set in
    Preferences carries the request, the process environment's proxy does not."""
    made: list[object] = []

    def counted(**kwargs: Any) -> httpx.AsyncClient:
        made.append(kwargs.get("proxy"))
        return make_async_client(**kwargs)

    monkeypatch.setattr("desktop.updates.checker.make_async_client", counted)
    dead = f"http://127.0.0.1:{unused_port()}"
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, dead)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    feed.serve(release("v99.0.0"))
    ctx = AppContext.open(tmp_path / "data", environ={}, log_to_stderr=False)
    try:
        with LoopbackProxy() as proxy:
            ctx.settings.update(update_feed_url=feed.url, proxy_url=proxy.url, no_proxy="")
            checker = UpdateChecker(ctx.settings, ctx.settings_store, "1.0.0", portable=False,
                                    proxy=lambda: ctx.proxy)
            result = asyncio.run(checker.check_now())
        assert result is not None and str(result.release.version) == "99.0.0"
        assert proxy.seen == [f"GET {feed.url}"]
        assert len(made) == 1
    finally:
        ctx.close()
