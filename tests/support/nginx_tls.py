"""nginx as an HTTPS front (TLS by nginx's OpenSSL, not ours or Python's) to a plain
loopback server, passing answers on as they arrive (``proxy_buffering off``), as a
TLS-terminating load balancer in front of a model server does. One process, no
daemon: it takes over a socket the test already listens on (nginx's ``NGINX``
environment variable), so no port is guessed and nothing waits for it to start.
Skips when nginx is not installed (packaging/dev.py installs it)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from tests.support.tls_certs import Certs

__all__ = ["NginxTLSFront", "needs_nginx"]

needs_nginx = pytest.mark.skipif(shutil.which("nginx") is None,
                                 reason="nginx is not installed (packaging/dev.py installs it)")

CONFIG = """
daemon off;
worker_processes 1;
{user}
error_log {run}/error.log warn;
pid {run}/nginx.pid;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {run}/body;
    proxy_temp_path {run}/proxy;
    fastcgi_temp_path {run}/fastcgi;
    uwsgi_temp_path {run}/uwsgi;
    scgi_temp_path {run}/scgi;
    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_http_version 1.1;
            proxy_buffering off;
            proxy_request_buffering off;
        }}
    }}
}}
"""


class NginxTLSFront:
    def __init__(self, upstream: int, certs: Certs, run: Path) -> None:
        run.mkdir(parents=True, exist_ok=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = int(self.sock.getsockname()[1])
        conf = run / "nginx.conf"
        user = "user root root;" if os.geteuid() == 0 else ""
        conf.write_text(CONFIG.format(run=run, port=self.port, upstream=upstream,
                                      cert=certs.cert, key=certs.key, user=user))
        fd = self.sock.fileno()
        self._process = subprocess.Popen(
            ["nginx", "-p", str(run), "-c", str(conf), "-e", str(run / "error.log")],
            env={**os.environ, "NGINX": f"{fd};"}, pass_fds=(fd,),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.log = run / "error.log"

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self._process.terminate()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(10)
        self.sock.close()
