"""MCP servers nobody here wrote, from the npm registry: the protocol's own reference
server, ``@modelcontextprotocol/server-everything`` (every feature: tools, prompts,
resources and templates, progress, annotations, elicitation, sampling), over stdio,
Streamable HTTP and SSE.

``packaging/dev.py test`` installs it under ``build/test-servers`` (npm); a test that
needs it is skipped, saying so, where it is missing (no Node.js or npm).
"""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from desktop.tools.mcp import LoginPath, McpServerConfig

ROOT = Path(__file__).resolve().parents[2]
PREFIX = Path(os.environ.get("ASSISTA_TEST_SERVERS", ROOT / "build" / "test-servers"))
EVERYTHING = PREFIX / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" \
    / "index.js"


PLAIN_PATH = LoginPath(environ={"PATH": os.environ.get("PATH", "")})


def everything_command() -> list[str]:
    node = subprocess.run(["which", "node"], capture_output=True, text=True, check=False)
    if node.returncode != 0 or not EVERYTHING.exists():
        pytest.skip("@modelcontextprotocol/server-everything is not installed "
                    "(packaging/dev.py test installs it with npm)")
    return [node.stdout.strip(), str(EVERYTHING)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class NodeServer:
    """server-everything serving ``transport`` (streamableHttp or sse) on loopback."""

    def __init__(self, transport: str) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [*everything_command(), transport], env={**os.environ, "PORT": str(self.port)},
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert self.process.stderr is not None
        for line in self.process.stderr:  # it says so once it listens
            if str(self.port) in line:
                break
        else:
            raise AssertionError(f"server-everything {transport} did not start")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


def config(transport: str, servers: dict[str, NodeServer] | None) -> McpServerConfig:
    if transport == "stdio":
        command, *args = everything_command()
        return McpServerConfig(name="everything", command=command, args=[*args, "stdio"],
                               startup_timeout_s=60, call_timeout_s=60)
    assert servers is not None
    path = "/mcp" if transport == "http" else "/sse"
    return McpServerConfig(name="everything", transport=transport,
                           url=servers[transport].url(path), startup_timeout_s=60,
                           call_timeout_s=60)
