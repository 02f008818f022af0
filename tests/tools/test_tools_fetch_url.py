"""fetch_url against a loopback http.server: text, caps, refusals, redirects, proxies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from desktop.core.messages import ToolCallPart
from desktop.tools import ToolContext, ToolExecutor, builtin_registry
from desktop.tools.approval import allow_all
from desktop.tools.builtins import fetch_url as fetch_module
from desktop.tools.builtins.fetch_url import fetch_url_tool
from desktop.tools.trust import ToolTrust
from tests.support import served

PAGE = (
    "<!doctype html><html><head><title>Test page</title><style>p{color:red}</style>"
    "<script>var secret = 1;</script></head><body><nav>Menu</nav><h1>Hello</h1>"
    "<p>Some <b>bold</b> text with <a href='/docs'>the docs</a>.</p>"
    "<ul><li>one</li><li>two</li></ul><div hidden>invisible</div></body></html>"
)
ROUTES: dict[str, tuple[int, str, bytes]] = {
    "/page": (200, "text/html; charset=utf-8", PAGE.encode()),
    "/latin": (200, "text/plain; charset=iso-8859-1", "café".encode("latin-1")),
    "/data": (200, "application/json", b'{"a": 1}'),
    "/image": (200, "image/png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 100),
    "/big": (200, "text/plain", b"x" * 300_000),
    "/missing": (404, "text/html", b"<p>No such page</p>"),
    "/untyped": (200, "", b"\x00\x01binary"),
}


class Handler(BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        Handler.seen.append(self.path)
        if self.path.startswith("http://"):  # we are being used as a proxy
            body = b"via proxy: " + self.path.encode()
            self._reply(200, "text/plain", body)
            return
        if self.path.startswith("/redirect"):
            self.send_response(302)
            self.send_header("Location", "/data")
            self.end_headers()
            return
        if self.path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.end_headers()
            return
        status, ctype, body = ROUTES.get(self.path, (404, "text/plain", b"nope"))
        self._reply(status, ctype, body)

    def _reply(self, status: int, ctype: str, body: bytes) -> None:
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "NO_PROXY",
        "no_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = served.serve(server)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        served.stop(server, thread)


LOOPBACK_ALLOWED = ToolTrust(fetch_allow_hosts=("127.0.0.1",))


async def fetch(url: str, *, trust: ToolTrust = LOOPBACK_ALLOWED, **extra: Any) -> dict[str, Any]:
    executor = ToolExecutor(builtin_registry(), None, approver=allow_all, trust=trust)
    part = await executor.run(
        ToolCallPart(id="f", name="fetch_url", arguments=json.dumps({"url": url, **extra}))
    )
    data: dict[str, Any] = json.loads(part.content)
    return data


async def test_html_becomes_readable_text(site: str) -> None:
    result = (await fetch(f"{site}/page"))["result"]
    assert result["title"] == "Test page"
    assert result["status"] == 200 and result["content_type"] == "text/html"
    text = result["text"]
    assert text.startswith("# Hello")
    assert f"Some bold text with the docs ({site}/docs)." in text
    assert "- one\n- two" in text
    for hidden in ("secret", "color:red", "Menu", "invisible"):
        assert hidden not in text
    raw = (await fetch(f"{site}/page", raw=True))["result"]["text"]
    assert raw == PAGE


async def test_text_json_and_charsets(site: str) -> None:
    assert (await fetch(f"{site}/latin"))["result"]["text"] == "café"
    assert json.loads((await fetch(f"{site}/data"))["result"]["text"]) == {"a": 1}


async def test_non_text_is_refused(site: str) -> None:
    image = await fetch(f"{site}/image")
    assert image["error"]["code"] == "not_text"
    assert "image/png" in image["error"]["message"]
    untyped = await fetch(f"{site}/untyped")
    assert untyped["error"]["code"] == "not_text"


async def test_size_caps(site: str, monkeypatch: pytest.MonkeyPatch) -> None:
    capped = (await fetch(f"{site}/big", max_chars=1000))["result"]
    assert len(capped["text"]) == 1000 and capped["truncated"] is True
    monkeypatch.setattr(fetch_module, "MAX_DOWNLOAD_BYTES", 10_000)
    download = (await fetch(f"{site}/big", max_chars=200_000))["result"]
    assert len(download["text"]) == 10_000
    assert "first 9 KB" in download["note"]


async def test_http_errors_and_redirects(site: str) -> None:
    missing = await fetch(f"{site}/missing")
    assert missing["error"]["code"] == "http_error"
    assert missing["error"]["status"] == 404
    assert "No such page" in missing["error"]["text"]
    redirected = (await fetch(f"{site}/redirect"))["result"]
    assert redirected["final_url"] == f"{site}/data"
    loop = await fetch(f"{site}/loop")
    assert loop["error"]["code"] == "http_error"


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)", "localhost/x", ""]
)
async def test_only_http_urls(url: str) -> None:
    data = await fetch(url)
    assert data["error"]["code"] in ("invalid_url", "invalid_arguments")


async def test_connection_refused_is_an_error(site: str) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    data = await fetch(f"http://127.0.0.1:{port}/")
    assert data["error"]["code"] == "network_error"


async def test_proxy_from_environment_is_used(site: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", site)
    data = await fetch("http://example.invalid/some/page")
    assert data["result"]["text"] == "via proxy: http://example.invalid/some/page"


async def test_preview_is_the_url() -> None:
    tool = fetch_url_tool()
    assert tool.policy == "ask"
    assert tool.preview is not None
    preview = await tool.preview({"url": " https://example.org/a "}, ToolContext())
    assert (preview.kind, preview.text, preview.title) == (
        "url",
        "https://example.org/a",
        "Fetch example.org",
    )
    # the same as a code and its data, for the interface to word in its language
    assert (preview.title_code, preview.title_params) == ("fetch", (("host", "example.org"),))
