"""MCP with real servers: a stdio process and a Streamable HTTP/SSE server on loopback,
both written with the official SDK (tests/tools/mcp_test_server.py), plus mcp-server-time."""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.tools import ToolExecutor
from desktop.tools.approval import allow_all
from desktop.tools.mcp import LoginPath, McpConnection, McpManager, McpServerConfig

SERVER = str(Path(__file__).with_name("mcp_test_server.py"))
PLAIN_PATH = LoginPath(environ={"PATH": os.environ.get("PATH", "")})  # no login shell


def stdio_config(name: str = "test", **kwargs: Any) -> McpServerConfig:
    fields: dict[str, Any] = {
        "name": name,
        "command": sys.executable,
        "args": [SERVER, "stdio"],
        "startup_timeout_s": 30,
        "call_timeout_s": 30,
    }
    return McpServerConfig(**(fields | kwargs))


def manager(*configs: McpServerConfig, **kwargs: Any) -> McpManager:
    return McpManager(configs, login_path=PLAIN_PATH, backoff_s=0.01, **kwargs)


@pytest.fixture
async def stdio() -> AsyncIterator[McpManager]:
    mcp = manager(stdio_config())
    assert await mcp.start_all() == {"test": True}
    try:
        yield mcp
    finally:
        await mcp.stop_all()


def payload(part: ToolResultPart) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(part.content)
    return data


async def run(executor: ToolExecutor, name: str, args: dict[str, Any], cid: str = "m") -> Any:
    return await executor.run(ToolCallPart(id=cid, name=name, arguments=json.dumps(args)))


def wait_dead(pid: int, timeout_s: float = 15.0) -> bool:
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout_s)[0])
    finally:
        os.close(fd)


async def server_pid(executor: ToolExecutor, prefix: str = "test") -> int:
    return int(payload(await run(executor, f"{prefix}__pid", {}))["result"]["text"])


async def test_tools_are_listed_named_and_given_policies(stdio: McpManager) -> None:
    registry = stdio.registry()
    names = registry.names()
    assert "test__echo" in names and "test__weird_name_with_chars" in names
    policies = {t.name: t.policy for t in registry}
    assert policies["test__add"] == "allow"  # readOnlyHint
    assert policies["test__echo"] == "ask"
    echo = registry.get("test__echo")
    assert echo is not None and echo.source == "test"
    assert echo.description.startswith("[MCP server test] Echo")
    assert echo.parameters["required"] == ["text"]


async def test_results_text_image_resource_and_errors(stdio: McpManager) -> None:
    executor = ToolExecutor(stdio.registry(), None, approver=allow_all)
    echo = payload(await run(executor, "test__echo", {"text": "hé"}))
    assert echo["result"]["text"] == "echo: hé"
    assert payload(await run(executor, "test__add", {"a": 2, "b": 40}))["result"][
        "structured_content"
    ] == {"result": 42}
    picture = await run(executor, "test__picture", {})
    items = payload(picture)["result"]["content"]
    assert items[0] == {"type": "text", "text": "a pixel"}
    assert items[1]["type"] == "image" and items[1]["mime_type"] == "image/png"
    assert "data" not in items[1]  # the model does not get base64
    [image] = picture.provider_data["images"]
    assert image["mime_type"] == "image/png"
    assert base64.b64decode(image["data"]).startswith(b"\x89PNG")
    document = payload(await run(executor, "test__document", {}))["result"]["content"]
    assert document == [
        {"type": "resource", "uri": "file:///notes.txt", "mime_type": "text/plain", "text": "hi"}
    ]
    broken = await run(executor, "test__broken", {})
    assert broken.status == "failed"
    assert payload(broken)["error"]["code"] == "mcp_tool_error"
    assert "broken on purpose" in payload(broken)["error"]["message"]
    invalid = payload(await run(executor, "test__add", {"a": "x"}))
    assert invalid["error"]["code"] == "invalid_arguments"


async def test_kill_mid_call_then_restart(stdio: McpManager) -> None:
    connection = stdio.get("test")
    assert connection is not None
    executor = ToolExecutor(stdio.registry(), None, approver=allow_all)
    pid = await server_pid(executor)
    call = asyncio.create_task(run(executor, "test__hang", {"marker": "hanging-now"}))
    assert await asyncio.to_thread(connection.stderr.wait_for, "hanging-now", 30)
    os.kill(pid, signal.SIGKILL)
    part = await call
    assert part.status == "failed"
    assert payload(part)["error"]["code"] == "mcp_server_crashed"
    assert await connection.wait_ready(30)
    assert connection.starts == 2
    assert payload(await run(executor, "test__echo", {"text": "back"}))["result"]["text"] == (
        "echo: back"
    )
    assert await server_pid(executor) != pid
    log = connection.stderr.lines()
    assert log.count("ready") == 2 and log[0].startswith("--- starting ")


async def test_server_exiting_during_a_call(stdio: McpManager) -> None:
    connection = stdio.get("test")
    assert connection is not None
    executor = ToolExecutor(stdio.registry(), None, approver=allow_all)
    part = await run(executor, "test__crash", {})
    assert payload(part)["error"]["code"] == "mcp_server_crashed"
    assert await connection.wait_ready(30)
    assert payload(await run(executor, "test__add", {"a": 1, "b": 1}))["status"] == "success"


async def test_a_call_restarts_a_server_that_was_given_up(tmp_path: Path) -> None:
    mcp = manager(stdio_config(), max_failures=0)
    try:
        assert (await mcp.start_all())["test"]
        connection = mcp.get("test")
        assert connection is not None
        executor = ToolExecutor(mcp.registry(), None, approver=allow_all)
        os.kill(await server_pid(executor), signal.SIGKILL)
        assert await connection.wait_for_state("failed", timeout_s=30)
        assert "gave up" in (connection.last_error or "")
        part = await run(executor, "test__echo", {"text": "revived"})
        assert payload(part)["result"]["text"] == "echo: revived"
        assert connection.state == "running" and connection.starts == 2
    finally:
        await mcp.stop_all()


async def test_call_timeout_keeps_the_server(tmp_path: Path) -> None:
    mcp = manager(stdio_config(call_timeout_s=0.5))
    try:
        assert (await mcp.start_all())["test"]
        executor = ToolExecutor(mcp.registry(), None, approver=allow_all)
        part = await run(executor, "test__hang", {"marker": "m"})
        assert payload(part)["error"]["code"] == "timeout"
        assert "0.5 seconds" in payload(part)["error"]["message"]
        assert payload(await run(executor, "test__echo", {"text": "ok"}))["status"] == "success"
    finally:
        await mcp.stop_all()


async def test_stop_ends_the_process(stdio: McpManager) -> None:
    executor = ToolExecutor(stdio.registry(), None, approver=allow_all)
    pid = await server_pid(executor)
    await stdio.stop_all()
    assert wait_dead(pid)
    connection = stdio.get("test")
    assert connection is not None and connection.state == "stopped"
    part = await run(executor, "test__echo", {"text": "x"})
    assert payload(part)["error"]["code"] == "mcp_unavailable"


async def test_a_silent_process_times_out_at_startup() -> None:
    silent = stdio_config(
        "silent", args=["-c", "import sys; sys.stdin.read()"], startup_timeout_s=0.5
    )
    connection = McpConnection(silent, max_failures=0)
    assert await connection.start() is False
    assert connection.state == "failed"
    assert "did not start within 0.5 seconds" in (connection.last_error or "")
    await connection.stop()


async def test_missing_command_fails_at_once() -> None:
    config = McpServerConfig(name="gone", command="assista-no-such-command-xyz")
    connection = McpConnection(config, path=lambda: "/nonexistent-bin")  # default retries
    started = time.monotonic()
    assert await connection.start() is False
    assert time.monotonic() - started < 5  # no backoff: retrying cannot make it exist
    assert connection.state == "failed" and connection.starts == 0
    assert (connection.last_error or "").startswith(
        "command not found: assista-no-such-command-xyz")
    assert "/nonexistent-bin" in (connection.last_error or "")
    await connection.stop()


async def test_bare_command_is_found_on_the_login_shell_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "private-bin"
    bin_dir.mkdir()
    launcher = bin_dir / "assista-test-mcp"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {SERVER} stdio\n")
    launcher.chmod(0o755)
    shell = tmp_path / "fake-login-shell"
    # a "login shell" whose rc files print noise and add a private folder to PATH
    shell.write_text(
        f"#!/bin/sh\necho 'motd noise'\nPATH={bin_dir}:$PATH\nexport PATH\n"
        '[ "$1" = "-l" ] && shift\nexec /bin/sh "$@"\n'
    )
    shell.chmod(0o755)
    config = McpServerConfig(name="found", command="assista-test-mcp")
    mcp = McpManager([config], login_path=LoginPath(shell=str(shell)))
    try:
        assert await mcp.start_all() == {"found": True}
        assert "found__echo" in mcp.registry().names()
    finally:
        await mcp.stop_all()


async def test_disabled_servers_and_tools(tmp_path: Path) -> None:
    configs = [
        stdio_config(
            "on", disabled_tools=["echo"], tool_policies={"add": "deny"}, default_policy="allow"
        ),
        stdio_config("off", enabled=False),
    ]
    mcp = manager(*configs)
    try:
        assert await mcp.start_all() == {"on": True}
        registry = mcp.registry()
        assert "on__echo" not in registry.names()
        assert not any(n.startswith("off__") for n in registry.names())
        policies = {t.name: t.policy for t in registry}
        assert policies["on__add"] == "deny" and policies["on__picture"] == "allow"
        executor = ToolExecutor(registry, None)
        assert "on__add" not in [s.name for s in executor.specs()]
    finally:
        await mcp.stop_all()


class HttpServer:
    """The test server as a separate process serving Streamable HTTP or SSE."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.port = 0
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        env = dict(os.environ, MCP_TEST_PORT=str(self.port))
        self.process = subprocess.Popen(
            [sys.executable, SERVER, self.kind],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())

    def wait_stderr(self, marker: str) -> None:
        """Block until the server writes ``marker`` on stderr."""
        assert self.process is not None and self.process.stderr is not None
        for line in self.process.stderr:
            if marker in line:
                return
        raise AssertionError(f"the server ended without writing {marker!r}")

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/" + ("mcp" if self.kind == "http" else "sse")


@pytest.fixture
def http_server() -> Iterator[HttpServer]:
    server = HttpServer("http")
    server.start()
    try:
        yield server
    finally:
        server.kill()


async def test_streamable_http_kill_mid_call_then_reconnect(http_server: HttpServer) -> None:
    config = McpServerConfig(
        name="web",
        transport="http",
        url=http_server.url,
        headers={"X-Test": "1"},
        call_timeout_s=30,
    )
    mcp = manager(config, max_failures=10_000, max_backoff_s=0.2)  # retry until it is back
    try:
        assert await mcp.start_all() == {"web": True}
        executor = ToolExecutor(mcp.registry(), None, approver=allow_all)
        assert payload(await run(executor, "web__add", {"a": 2, "b": 3}))["result"]["text"] == "5"
        call = asyncio.create_task(run(executor, "web__hang", {"marker": "in-the-call"}))
        await asyncio.wait_for(asyncio.to_thread(http_server.wait_stderr, "in-the-call"), 30)
        http_server.kill()
        part = await call
        assert part.status == "failed"
        assert payload(part)["error"]["code"] == "mcp_server_crashed"
        await asyncio.to_thread(http_server.start)  # same port
        connection = mcp.get("web")
        assert connection is not None and await connection.wait_ready(30)
        assert (
            payload(await run(executor, "web__echo", {"text": "again"}))["result"]["text"]
            == "echo: again"
        )
    finally:
        await mcp.stop_all()


async def test_legacy_sse_server() -> None:
    server = HttpServer("sse")
    await asyncio.to_thread(server.start)
    mcp = manager(McpServerConfig(name="old", transport="sse", url=server.url))
    try:
        assert await mcp.start_all() == {"old": True}
        executor = ToolExecutor(mcp.registry(), None, approver=allow_all)
        assert payload(await run(executor, "old__echo", {"text": "sse"}))["result"]["text"] == (
            "echo: sse"
        )
    finally:
        await mcp.stop_all()
        server.kill()


@pytest.mark.skipif(
    importlib.util.find_spec("mcp_server_time") is None, reason="mcp-server-time is not installed"
)
async def test_mcp_server_time_from_pypi() -> None:
    config = McpServerConfig(
        name="time",
        command=sys.executable,
        args=["-m", "mcp_server_time", "--local-timezone", "UTC"],
    )
    mcp = manager(config)
    try:
        assert await mcp.start_all() == {"time": True}
        registry = mcp.registry()
        assert {"time__get_current_time", "time__convert_time"} <= set(registry.names())
        tool = registry.get("time__get_current_time")
        assert tool is not None and tool.policy == "allow"  # the server marks it read-only
        executor = ToolExecutor(registry, None)
        part = await run(executor, "time__get_current_time", {"timezone": "UTC"})
        result = payload(part)["result"]
        assert result["structured_content"]["timezone"] == "UTC"
        bad = await run(executor, "time__get_current_time", {"timezone": "Mars/Olympus"})
        assert bad.status == "failed"
    finally:
        await mcp.stop_all()
