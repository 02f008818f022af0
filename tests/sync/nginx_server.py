"""nginx as a WebDAV server for the sync tests (Debian's nginx with its DAV module and
the dav-ext module for PROPFIND), with HTTP Basic auth and an upload limit
(``client_max_body_size``, 1 MB as nginx has by default). One process, no daemon, on
127.0.0.1: it takes over a socket the test already listens on (nginx's own way of
inheriting listening sockets, the ``NGINX`` environment variable), so no port is
guessed and nothing waits for it to start. Tests using it skip when nginx or the
dav-ext module is not installed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.processes import NginxProcess

USER = "alice"
PASSWORD = "nginx-secret"
DAV_EXT = Path("/usr/lib/nginx/modules/ngx_http_dav_ext_module.so")

needs_nginx = pytest.mark.skipif(
    shutil.which("nginx") is None or not DAV_EXT.exists(),
    reason="nginx with the dav-ext module is not installed (apt-get install nginx "
           "libnginx-mod-http-dav-ext; packaging/dev.py installs them)",
)

SERVER = """
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
"""


class NginxWebDav:
    def __init__(self, root: Path, run: Path, limit: str = "1m") -> None:
        root.mkdir(parents=True, exist_ok=True)
        run.mkdir(parents=True, exist_ok=True)
        self.root = root
        (run / "htpasswd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
        self._nginx = NginxProcess(run, SERVER, f"load_module {DAV_EXT};", root=root,
                                   limit=limit)
        self.port = self._nginx.port
        self.log = self._nginx.log

    @property
    def url(self) -> str:
        return f"webdav://{USER}@127.0.0.1:{self.port}/sync"

    def stop(self) -> None:
        self._nginx.stop()
