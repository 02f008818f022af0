"""Starting the test MCP servers: stdio configs, and HTTP servers as processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from desktop.tools.mcp import LoginPath, McpManager, McpServerConfig

HERE = Path(__file__).parent
FEATURES = str(HERE / "mcp_feature_server.py")
PLAIN_PATH = LoginPath(environ={"PATH": os.environ.get("PATH", "")})  # no login shell


def feature_config(name: str = "features", **kwargs: Any) -> McpServerConfig:
    fields: dict[str, Any] = {"name": name, "command": sys.executable,
                              "args": [FEATURES, "stdio"], "startup_timeout_s": 30,
                              "call_timeout_s": 30}
    return McpServerConfig(**(fields | kwargs))


def feature_manager(*configs: McpServerConfig, **kwargs: Any) -> McpManager:
    return McpManager(configs or [feature_config()], login_path=PLAIN_PATH, backoff_s=0.01,
                      **kwargs)


class ServerProcess:
    """A test server script serving HTTP on a free loopback port (printed on stdout)."""

    def __init__(self, script: str, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen([sys.executable, script, *args],
                                        env=dict(os.environ, **(env or {})),
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.strip().isdigit():
            self.stop()
            raise AssertionError(f"{script} did not start: {line!r}")
        self.port = int(line)

    def url(self, path: str = "/mcp") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
