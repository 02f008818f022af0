"""The proxy setting routes provider requests through a real loopback proxy."""

from __future__ import annotations

import http.client
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

import pytest

from desktop.app import PROXY_VARIABLES, AppContext, apply_proxy
from desktop.core.events import TextDelta
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.core.settings import AppSettings, ProviderConfig
from tests.support.openai_server import FakeOpenAIServer


class _ProxyHandler(BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _forward(self) -> None:
        self.seen.append(f"{self.command} {self.path}")
        target = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        connection = http.client.HTTPConnection(target.hostname, target.port, timeout=10)
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("proxy-connection", "connection", "host")}
        path = target.path + (f"?{target.query}" if target.query else "")
        connection.request(self.command, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        self.send_response(response.status)
        for key, value in response.getheaders():
            if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    do_GET = _forward
    do_POST = _forward


@pytest.fixture
def proxy() -> Iterator[tuple[str, list[str]]]:
    _ProxyHandler.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ProxyHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _ProxyHandler.seen
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def _restore_environment() -> Iterator[None]:
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


async def test_provider_requests_go_through_the_proxy(
    tmp_path: Path, proxy: tuple[str, list[str]]
) -> None:
    url, seen = proxy
    ctx = AppContext.open(tmp_path, environ={}, log_to_stderr=False)
    try:
        ctx.save_settings(AppSettings(proxy_url=url, no_proxy=""))
        with FakeOpenAIServer(models=["m1"]) as server:
            server.enqueue_text("via proxy")
            config = ProviderConfig(name="P", base_url=server.base_url, model="m1")
            provider = ctx.build_provider(config)
            models = await provider.list_models()
            text = ""
            async for event in provider.stream(ChatRequest(model="m1",
                                                           messages=[Message.user("x")])):
                if isinstance(event, TextDelta):
                    text += event.text
            await provider.aclose()
        assert [m.id for m in models] == ["m1"] and text == "via proxy"
        assert any(line.startswith("GET http://127.0.0.1") and line.endswith("/v1/models")
                   for line in seen)
        assert any(line.endswith("/v1/chat/completions") for line in seen)
    finally:
        ctx.close()


def test_clearing_the_setting_restores_the_start_environment() -> None:
    apply_proxy(AppSettings(proxy_url="socks5://127.0.0.1:1080"), {"HTTPS_PROXY": "http://corp:8080"})
    assert os.environ["HTTPS_PROXY"] == "socks5://127.0.0.1:1080"
    assert os.environ["NO_PROXY"] == AppSettings().no_proxy
    apply_proxy(AppSettings(), {"HTTPS_PROXY": "http://corp:8080"})
    assert os.environ["HTTPS_PROXY"] == "http://corp:8080"
    assert all(name not in os.environ for name in PROXY_VARIABLES if name != "HTTPS_PROXY")
