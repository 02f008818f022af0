"""Real servers for the sync tests, on 127.0.0.1 with a free port: WebDAV (wsgidav on
cheroot) and S3 (moto's server mode), each behind a switchable fault injector."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from cheroot import wsgi
from wsgidav.wsgidav_app import WsgiDAVApp

from tests.support import served

USER = "alice"
PASSWORD = "webdav-secret"

Environ = dict[str, Any]
StartResponse = Callable[..., Any]


class Faults:
    """What the WebDAV server does wrong: ``mode`` is None (nothing), "507" (PUTs
    refused, out of space), "503" (every request), "drop" (segment downloads cut
    off half-way), "corrupt" (a byte of each segment flipped), "pause" (the first
    upload of a segment stops half-way until :attr:`release` is set), "lose"
    (uploads and moves of segments answered 201 and thrown away), "move-503" (moves
    refused: the uploaded temporary file stays), "huge" (``sync.json`` answered with
    :attr:`huge_size` bytes, announced when :attr:`announce`) or "limit" (bodies over
    :attr:`body_limit` bytes refused with 413, as nginx's ``client_max_body_size``).
    :attr:`sent` counts the bytes of "huge" answers actually sent."""

    def __init__(self) -> None:
        self.mode: str | None = None
        self.paused = threading.Event()
        self.release = threading.Event()
        self.body_limit = 1024 * 1024
        self.huge_size = 10 * 1024**3
        self.announce = True
        self.sent = 0
        self.refused: list[int] = []  # sizes of bodies answered 413


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
        if mode == "lose" and method in ("PUT", "MOVE") and segment:
            _discard(environ)
            start_response("201 Created", [("Content-Length", "0")])
            return [b""]
        if mode == "move-503" and method == "MOVE":
            start_response("503 Service Unavailable", [("Content-Length", "0")])
            return [b""]
        if mode == "limit" and int(environ.get("CONTENT_LENGTH") or 0) > faults.body_limit:
            faults.refused.append(_discard(environ))
            start_response("413 Request Entity Too Large", [("Content-Length", "0")])
            return [b""]
        if mode == "huge" and method == "GET" and environ.get("PATH_INFO", "").endswith(
                "/sync.json"):
            return _huge(faults, start_response)
        if mode == "pause" and method == "PUT" and segment:
            environ["wsgi.input"] = _PausingInput(environ["wsgi.input"], faults)
        if mode in ("drop", "corrupt") and method == "GET" and segment:
            return _altered(app, environ, start_response, mode)
        return app(environ, start_response)

    return wrapped


def _discard(environ: Environ) -> int:
    """Read the request's body and throw it away; its size."""
    return len(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))


def _huge(faults: Faults, start_response: StartResponse) -> Iterator[bytes]:
    headers = [("Content-Type", "application/json")]
    if faults.announce:
        headers.append(("Content-Length", str(faults.huge_size)))
    start_response("200 OK", headers)
    chunk = b"{" + b" " * (64 * 1024 - 1)
    while faults.sent < faults.huge_size:
        faults.sent += len(chunk)
        yield chunk


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
        self._server.expiration_interval = 0.05  # its loop's wait: stop() takes that long
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
    """moto's S3 in server mode, behind ``middleware`` (a WSGI wrapper) when given."""

    def __init__(self, middleware: Callable[[Any], Any] | None = None) -> None:
        import uuid

        import boto3
        from moto.server import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
        from werkzeug.serving import make_server

        app: Any = DomainDispatcherApplication(create_backend_app)
        if middleware is not None:
            app = middleware(app)
        self._server = make_server("127.0.0.1", 0, app, True,
                                   request_handler=MotoRequestHandler)
        self._thread = served.serve(self._server)
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
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

    def wipe(self) -> None:
        for key in self.objects():
            self.client.delete_object(Bucket=self.bucket, Key=key)

    def stop(self) -> None:
        served.stop(self._server, self._thread)


def rewrite_listings(old: bytes, new: bytes) -> Callable[[Any], Any]:
    """Middleware for :class:`S3Server`: bucket listings answered with ``new`` in place of
    ``old`` (an XML namespace, as s3rver and local-s3-server answer)."""

    def middleware(app: Any) -> Any:
        def wrapped(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
            if "list-type" not in environ.get("QUERY_STRING", ""):
                return app(environ, start_response)
            captured: list[Any] = []
            body = b"".join(app(environ, lambda st, hd, *a: captured.extend([st, hd])))
            body = body.replace(old, new)
            headers = [(k, v) for k, v in captured[1] if k.lower() != "content-length"]
            start_response(captured[0], [*headers, ("Content-Length", str(len(body)))])
            return [body]

        return wrapped

    return middleware
