"""``rclone serve webdav``: a second, independent WebDAV server for the sync tests
(Go's ``x/net/webdav``, as many NAS and self-hosted setups use), on 127.0.0.1 with a
port the OS picks. Tests using it skip when rclone is not installed."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from tests.support.processes import end_process

USER = "alice"
PASSWORD = "rclone-secret"

needs_rclone = pytest.mark.skipif(
    shutil.which("rclone") is None,
    reason="rclone is not installed (apt-get install rclone; packaging/dev.py installs it)",
)

_STARTED = re.compile(r"Server started on (http://127\.0\.0\.1:\d+)/?")


class RcloneWebDav:
    def __init__(self, root: Path, port: int = 0) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self._process = subprocess.Popen(
            ["rclone", "serve", "webdav", str(root), "--addr", f"127.0.0.1:{port}",
             "--user", USER, "--pass", PASSWORD, "--config", "/dev/null"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True,
        )
        assert self._process.stderr is not None
        self.base = ""
        lines: list[str] = []
        for line in self._process.stderr:  # blocks until rclone says where it listens
            lines.append(line)
            found = _STARTED.search(line)
            if found:
                self.base = found.group(1)
                break
        if not self.base:
            self._process.wait(10)
            raise RuntimeError("rclone serve webdav did not start:\n" + "".join(lines))
        # Keep reading what it logs, so it never blocks on a full pipe.
        threading.Thread(target=self._process.stderr.read, daemon=True).start()

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1])

    @property
    def url(self) -> str:
        return f"webdav://{USER}@{self.base.removeprefix('http://')}/sync"

    def wipe(self) -> None:
        """Empty the sync folder through the server (behind its back, its directory
        cache would still list what was deleted)."""
        import httpx

        response = httpx.request("DELETE", f"{self.base}/sync/", auth=(USER, PASSWORD),
                                 trust_env=False)
        assert response.status_code in (200, 204), response.text

    def stop(self) -> None:
        end_process(self._process)
