"""fetch_url refuses local and private addresses in any notation, after resolving and
for every redirect hop, unless the user allow-lists the host; approval of one URL
does not extend to where it redirects."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from desktop.core.messages import ToolCallPart
from desktop.core.proxy import Proxy
from desktop.tools import ToolExecutor, builtin_registry
from desktop.tools.approval import ApprovalDecision, ApprovalRequest
from desktop.tools.builtins._netguard import AllowList, is_public, parse_literal
from desktop.tools.trust import ToolTrust
from tests.support import served


class Handler(BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        Handler.seen.append(f"{self.headers.get('Host')} {self.path}")
        if self.path.startswith("http://"):  # used as a proxy
            self._reply(b"via proxy: " + self.path.encode())
        elif self.path.startswith("/to/"):
            self.send_response(302)
            self.send_header("Location", self.path[len("/to/"):].replace("|", "/"))
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._reply(b"secret admin page")

    def _reply(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def port(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    Handler.seen.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = served.serve(server)
    try:
        yield int(server.server_address[1])
    finally:
        served.stop(server, thread)


async def fetch(url: str, *allowed: str, proxy: Proxy | None = None,
                asked: list[str] | None = None) -> dict[str, Any]:
    async def approver(request: ApprovalRequest) -> ApprovalDecision:
        if asked is not None:
            asked.append(request.arguments["url"])
        return ApprovalDecision.allow_once()

    executor = ToolExecutor(builtin_registry(), None, approver=approver, proxy=proxy,
                            trust=ToolTrust(fetch_allow_hosts=allowed))
    part = await executor.run(
        ToolCallPart(id="f", name="fetch_url", arguments=json.dumps({"url": url})))
    data: dict[str, Any] = json.loads(part.content)
    return data


LOOPBACK_SPELLINGS = ["127.0.0.1", "2130706433", "0x7f000001", "0x7f.0.0.1", "0177.0.0.1",
                      "017700000001", "127.1", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]",
                      "localhost", "LOCALHOST.", "app.localhost", "0", "0.0.0.0", "[::]",
                      "[::1]", "[0:0:0:0:0:0:0:1]"]


@pytest.mark.parametrize("host", LOOPBACK_SPELLINGS)
async def test_loopback_in_any_notation_is_refused_without_asking(port: int, host: str) -> None:
    asked: list[str] = []
    data = await fetch(f"http://{host}:{port}/admin", asked=asked)
    assert data["error"]["code"] == "blocked_address", data
    assert "allow-list" in data["error"]["message"]
    assert asked == [] and Handler.seen == []


@pytest.mark.parametrize("host", ["10.0.0.1", "172.16.3.4", "192.168.1.1", "169.254.169.254",
                                  "100.64.0.1", "224.0.0.1", "255.255.255.255", "[fc00::1]",
                                  "[fe80::1]", "[ff02::1]", "[2002:7f00:1::]",
                                  "[64:ff9b::a00:1]", "[::127.0.0.1]", "0xa9.0xfe.0xa9.0xfe"])
async def test_private_link_local_cgnat_multicast_are_refused(host: str) -> None:
    data = await fetch(f"http://{host}/latest/meta-data/")
    assert data["error"]["code"] == "blocked_address", data


def test_public_addresses_pass() -> None:
    for text in ("8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"):
        address = parse_literal(text)
        assert address is not None and is_public(address), text
    assert parse_literal("example.com") is None
    assert parse_literal("0x7f.1") == ipaddress.ip_address("127.0.0.1")


async def test_allow_listed_loopback_works(port: int) -> None:
    data = await fetch(f"http://127.0.0.1:{port}/admin", "127.0.0.1")
    assert data["result"]["text"] == "secret admin page"
    network = await fetch(f"http://127.0.0.1:{port}/admin", "127.0.0.0/8")
    assert network["result"]["text"] == "secret admin page"


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Names under .test resolve to loopback (no DNS in the tests); others as usual."""
    loop_class = type(asyncio.get_event_loop_policy().new_event_loop())
    real = loop_class.getaddrinfo

    async def getaddrinfo(self: Any, host: Any, port: Any, *args: Any, **kw: Any) -> Any:
        if isinstance(host, str) and host.endswith(".test"):
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return await real(self, host, port, *args, **kw)

    monkeypatch.setattr(loop_class, "getaddrinfo", getaddrinfo)


async def test_a_name_resolving_to_loopback_is_refused(port: int, fake_dns: None) -> None:
    data = await fetch(f"http://intranet.test:{port}/admin")
    assert data["error"]["code"] == "blocked_address"
    assert "intranet.test (127.0.0.1)" in data["error"]["message"]
    assert Handler.seen == []
    allowed = await fetch(f"http://intranet.test:{port}/admin", "intranet.test")
    assert allowed["result"]["text"] == "secret admin page"
    assert Handler.seen == [f"intranet.test:{port} /admin"]  # the name, at the checked address
    suffix = await fetch(f"http://intranet.test:{port}/admin", ".test")
    assert suffix["result"]["text"] == "secret admin page"


async def test_redirects_stay_on_the_approved_host(port: int, fake_dns: None) -> None:
    same = await fetch(f"http://127.0.0.1:{port}/to/|final", "127.0.0.1")
    assert same["result"]["final_url"] == f"http://127.0.0.1:{port}/final"
    # Another host, even an allowed one, is not followed: the model must ask again.
    asked: list[str] = []
    other = await fetch(f"http://127.0.0.1:{port}/to/http:||other.test:{port}|admin",
                        "127.0.0.1", "other.test", asked=asked)
    assert other["error"]["code"] == "redirect_to_other_host"
    assert other["error"]["redirect_to"] == f"http://other.test:{port}/admin"
    assert asked == [f"http://127.0.0.1:{port}/to/http:||other.test:{port}|admin"]
    assert not any(line.startswith("other.test") for line in Handler.seen)
    # The metadata service behind a redirect on the same name is checked at that hop.
    metadata = await fetch(f"http://127.0.0.1:{port}/to/http:||0:{port}|x", "127.0.0.1")
    assert metadata["error"]["code"] in ("redirect_to_other_host", "blocked_address")


async def test_through_a_proxy_literal_private_addresses_are_still_refused(port: int) -> None:
    proxy = Proxy(f"http://127.0.0.1:{port}")
    refused = await fetch("http://169.254.169.254/latest/", proxy=proxy)
    assert refused["error"]["code"] == "blocked_address"
    refused_name = await fetch("http://localhost/admin", proxy=proxy)
    assert refused_name["error"]["code"] == "blocked_address"
    assert Handler.seen == []
    public = await fetch("http://example.invalid/page", proxy=proxy)
    assert public["result"]["text"] == "via proxy: http://example.invalid/page"


def test_allow_list_entries() -> None:
    allow = AllowList(["Intranet.Example.", ".corp.example", "10.0.0.0/8", "[::1]", " "])
    assert allow.allows("intranet.example") and allow.allows("a.corp.example")
    assert allow.allows("10.1.2.3") and allow.allows("[::1]")
    assert allow.allows("host", ipaddress.ip_address("10.9.9.9"))
    assert not allow.allows("corp.example.evil") and not allow.allows("11.0.0.1")
