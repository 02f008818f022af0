"""nginx as a WebDAV server for the sync tests (Debian's nginx with its DAV module and
the dav-ext module for PROPFIND), with HTTP Basic auth and an upload limit
(``client_max_body_size``, 1 MB as nginx has by default). One process, no daemon, on
127.0.0.1: it takes over a socket the test already listens on (nginx's own way of
inheriting listening sockets, the ``NGINX`` environment variable), so no port is
guessed and nothing waits for it to start. Tests using it skip when nginx or the
dav-ext module is not installed."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

USER = "alice"
PASSWORD = "nginx-secret"
DAV_EXT = Path("/usr/lib/nginx/modules/ngx_http_dav_ext_module.so")

needs_nginx = pytest.mark.skipif(
    shutil.which("nginx") is None or not DAV_EXT.exists(),
    reason="nginx with the dav-ext module is not installed (apt-get install nginx "
           "libnginx-mod-http-dav-ext; packaging/dev.py installs them)",
)

CONFIG = """
daemon off;
worker_processes 1;
{user}
error_log {run}/error.log warn;
pid {run}/nginx.pid;
load_module {dav_ext};
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {run}/body;
    proxy_temp_path {run}/proxy;
    fastcgi_temp_path {run}/fastcgi;
    uwsgi_temp_path {run}/uwsgi;
    scgi_temp_path {run}/scgi;
    server {{
        listen 127.0.0.1:{port};
        client_max_body_size {limit};
        location / {{
            root {root};
            dav_methods PUT DELETE MKCOL COPY MOVE;
            dav_ext_methods PROPFIND OPTIONS;
            create_full_put_path on;
            auth_basic "sync";
            auth_basic_user_file {run}/htpasswd;
        }}
    }}
}}
"""


class NginxWebDav:
    def __init__(self, root: Path, run: Path, limit: str = "1m") -> None:
        root.mkdir(parents=True, exist_ok=True)
        run.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = int(self.sock.getsockname()[1])
        (run / "htpasswd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
        conf = run / "nginx.conf"
        user = "user root root;" if os.geteuid() == 0 else ""  # (the files are the test's)
        conf.write_text(CONFIG.format(run=run, root=root, port=self.port, limit=limit,
                                      dav_ext=DAV_EXT, user=user))
        fd = self.sock.fileno()
        self._process = subprocess.Popen(
            ["nginx", "-p", str(run), "-c", str(conf), "-e", str(run / "error.log")],
            env={**os.environ, "NGINX": f"{fd};"}, pass_fds=(fd,),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.log = run / "error.log"

    @property
    def url(self) -> str:
        return f"webdav://{USER}@127.0.0.1:{self.port}/sync"

    def stop(self) -> None:
        self._process.terminate()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(10)
        self.sock.close()
