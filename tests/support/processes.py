"""Servers the tests start as processes: ending one, and nginx on a socket the test
already listens on (nginx's own way of inheriting listening sockets, the ``NGINX``
environment variable: no port is guessed and nothing waits for it to start)."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

__all__ = ["NginxProcess", "end_process"]


def end_process(process: subprocess.Popen[bytes]) -> None:
    """Ask ``process`` to end; kill it if it has not within 10 s."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


#: nginx's configuration around the test's ``server`` block and ``modules`` to load.
CONFIG = """
daemon off;
worker_processes 1;
{user}
error_log {run}/error.log warn;
pid {run}/nginx.pid;
{modules}
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {run}/body;
    proxy_temp_path {run}/proxy;
    fastcgi_temp_path {run}/fastcgi;
    uwsgi_temp_path {run}/uwsgi;
    scgi_temp_path {run}/scgi;
{server}
}}
"""


class NginxProcess:
    """nginx (one process, no daemon) serving ``server``, a template of its server
    block given ``run`` (its folder: the pid, temp files, the error log), ``port``
    and whatever else ``fields`` name; ``modules``: ``load_module`` lines."""

    def __init__(self, run: Path, server: str, modules: str = "", **fields: object) -> None:
        run.mkdir(parents=True, exist_ok=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = int(self.sock.getsockname()[1])
        conf = run / "nginx.conf"
        user = "user root root;" if os.geteuid() == 0 else ""  # (the files are the test's)
        block = server.format(run=run, port=self.port, **fields)
        conf.write_text(CONFIG.format(run=run, user=user, modules=modules, server=block))
        fd = self.sock.fileno()
        self.log = run / "error.log"
        self._process = subprocess.Popen(
            ["nginx", "-p", str(run), "-c", str(conf), "-e", str(self.log)],
            env={**os.environ, "NGINX": f"{fd};"}, pass_fds=(fd,),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self) -> None:
        end_process(self._process)
        self.sock.close()
