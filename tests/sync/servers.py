"""Real servers for the sync tests, on 127.0.0.1 with a free port: WebDAV (wsgidav on
cheroot) behind a switchable fault injector, and S3 (moto's server mode)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from cheroot import wsgi
from wsgidav.wsgidav_app import WsgiDAVApp

USER = "alice"
PASSWORD = "webdav-secret"

Environ = dict[str, Any]
StartResponse = Callable[..., Any]


class Faults:
    """What the WebDAV server does wrong: ``mode`` is None (nothing), "507" (PUTs
    refused, out of space), "503" (every request), "drop" (segment downloads cut
    off half-way), "corrupt" (a byte of each segment flipped) or "pause" (the first
    upload of a segment stops half-way until :attr:`release` is set)."""

    def __init__(self) -> None:
        self.mode: str | None = None
        self.paused = threading.Event()
        self.release = threading.Event()


class _PausingInput:
    def __init__(self, stream: Any, faults: Faults) -> None:
        self._stream = stream
        self._faults = faults
        self._read = 0

    def read(self, size: int = -1) -> bytes:
        if self._read > 0 and not self._faults.paused.is_set():
            self._faults.paused.set()
            self._faults.release.wait(60)
        data: bytes = self._stream.read(size)
        self._read += len(data)
        return data


def faulty(app: Callable[[Environ, StartResponse], Iterable[bytes]], faults: Faults) -> Any:
    def wrapped(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        mode, method = faults.mode, environ["REQUEST_METHOD"]
        segment = "/devices/" in environ.get("PATH_INFO", "")
        if mode == "503":
            start_response("503 Service Unavailable", [("Content-Length", "0")])
            return [b""]
        if mode == "507" and method == "PUT":
            environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            start_response("507 Insufficient Storage", [("Content-Length", "0")])
            return [b""]
        if mode == "pause" and method == "PUT" and segment:
            environ["wsgi.input"] = _PausingInput(environ["wsgi.input"], faults)
        if mode in ("drop", "corrupt") and method == "GET" and segment:
            return _altered(app, environ, start_response, mode)
        return app(environ, start_response)

    return wrapped


def _altered(app: Any, environ: Environ, start_response: StartResponse, mode: str) -> Any:
    captured: list[Any] = []
    body = b"".join(app(environ, lambda status, headers, *a: captured.extend([status, headers])))
    headers = [(k, v) for k, v in captured[1] if k.lower() != "content-length"]
    headers.append(("Content-Length", str(len(body))))
    start_response(captured[0], headers)
    if mode == "corrupt":
        middle = len(body) // 2
        return [body[:middle] + bytes([body[middle] ^ 0xFF]) + body[middle + 1 :]]

    def cut_off() -> Iterator[bytes]:
        yield body[: len(body) // 2]
        raise ConnectionAbortedError("test: connection dropped mid-transfer")

    return cut_off()


class WebDavServer:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.faults = Faults()
        config = {
            "host": "127.0.0.1",
            "port": 0,
            "provider_mapping": {"/dav": str(root)},
            "simple_dc": {"user_mapping": {"*": {USER: {"password": PASSWORD}}}},
            "http_authenticator": {
                "domain_controller": None,
                "accept_basic": True,
                "accept_digest": False,
                "default_to_digest": False,
            },
            "verbose": 0,
            "logging": {"enable": False},
            "lock_storage": True,
        }
        app = WsgiDAVApp(config)
        self._server = wsgi.Server(("127.0.0.1", 0), faulty(app, self.faults))
        self._server.prepare()
        self.port = self._server.bind_addr[1]
        self._thread = threading.Thread(target=self._server.serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"webdav://{USER}@127.0.0.1:{self.port}/dav/sync"

    def stop(self) -> None:
        self.faults.release.set()
        self._server.stop()
        self._thread.join(10)


class S3Server:
    def __init__(self) -> None:
        import uuid

        import boto3
        from moto.server import ThreadedMotoServer

        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self._server.start()
        host, port = self._server.get_host_and_port()
        self.endpoint = f"http://{host}:{port}"
        # moto's servers share one in-memory store per process: a bucket per test.
        bucket = self.bucket = f"chats-{uuid.uuid4().hex[:12]}"
        self.environ = {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing-secret",
            "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": self.endpoint,
        }
        self.client = boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id="testing",
            aws_secret_access_key="testing-secret",
            region_name="us-east-1",
        )
        self.client.create_bucket(Bucket=bucket)

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/assista"

    def objects(self) -> dict[str, bytes]:
        """Every object in the bucket, as the server stores it."""
        found: dict[str, bytes] = {}
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket):
            for item in page.get("Contents", []):
                body = self.client.get_object(Bucket=self.bucket, Key=item["Key"])["Body"]
                found[item["Key"]] = body.read()
        return found

    def stop(self) -> None:
        self._server.stop()
