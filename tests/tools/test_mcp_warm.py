"""The warm copy of the test MCP servers (tests/tools/mcp_warm.py): a server script
started as the app starts it is served by a fork of the copy, and its own process
stands for that fork: the same pipes, the same exit status, the same end by a signal;
a signal sent to it reaches the fork, and killing it kills the fork."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.tools.mcp_warm import STARTED, SUPPORTED, start_copies, stop_copy, wait_listening

pytestmark = pytest.mark.skipif(not SUPPORTED, reason="the warm copies run on Linux only")
SERVER = str(Path(__file__).with_name("mcp_test_server.py"))
#: What the MCP SDK passes to a stdio server (its default environment), as in the app.
APP_ENV = {k: os.environ[k] for k in ("HOME", "PATH", "USER", "LOGNAME", "SHELL", "TERM")
           if k in os.environ}


@pytest.fixture(scope="module")
def copies() -> Iterator[None]:
    """The copies this test process started at its first test, once they are up (or,
    with ASSISTA_TEST_FRESH_MCP=1, copies of this module's own)."""
    own = [] if STARTED else start_copies()
    try:
        for copy in STARTED or own:
            assert wait_listening(copy) in (b"ready\n", b"busy\n")  # (busy: others serve)
        yield
    finally:
        for copy in own:
            stop_copy(copy)


class Server:
    """``python mcp_test_server.py stdio`` as the app starts it, spoken to over its pipes."""

    def __init__(self, *, fresh: bool = False) -> None:
        # (an interpreter flag no copy has: the script runs on in its own interpreter)
        env = APP_ENV | ({"PYTHONDONTWRITEBYTECODE": "1"} if fresh else {})
        self.process = subprocess.Popen([sys.executable, SERVER, "stdio"], env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        self.next_id = 1
        init = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                           "clientInfo": {"name": "test", "version": "1"}})
        assert init["result"]["serverInfo"]
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> Any:
        assert self.process.stdout is not None
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return json.loads(self.process.stdout.readline())

    def call(self, tool: str) -> Any:
        return self.request("tools/call", {"name": tool, "arguments": {}})

    def serving_pid(self) -> int:
        return int(self.call("pid")["result"]["content"][0]["text"])


def ends(pid: int) -> bool:
    """Whether process ``pid`` ends within 30 seconds."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], 30)[0])
    finally:
        os.close(fd)


def cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


@pytest.mark.usefixtures("copies")
def test_a_fork_of_the_copy_serves_and_its_exit_status_comes_back() -> None:
    server = Server()
    pid = server.serving_pid()
    assert pid != server.process.pid and "mcp_warm.py" in cmdline(pid)  # a fork serves
    server.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                 "params": {"name": "crash", "arguments": {}}})  # it exits with status 3
    assert server.process.wait(30) == 3
    assert ends(pid)


@pytest.mark.usefixtures("copies")
def test_stdin_closed_ends_the_server_as_a_fresh_one_ends() -> None:
    server = Server()
    pid = server.serving_pid()
    assert server.process.stdin is not None
    server.process.stdin.close()
    assert server.process.wait(30) == 0
    assert ends(pid)


@pytest.mark.usefixtures("copies")
def test_a_signal_reaches_the_fork_and_ends_it_as_a_fresh_server() -> None:
    codes = []
    for fresh in (True, False):
        server = Server(fresh=fresh)
        pid = server.serving_pid()
        assert (pid == server.process.pid) is fresh
        server.process.send_signal(signal.SIGTERM)  # (as the SDK ends a server)
        codes.append(server.process.wait(30))
        assert ends(pid)
    assert codes[0] == codes[1]


@pytest.mark.usefixtures("copies")
def test_killing_the_servers_process_kills_the_fork() -> None:
    server = Server()
    pid = server.serving_pid()
    os.killpg(server.process.pid, signal.SIGKILL)  # as the SDK ends a server's tree
    assert server.process.wait(30) == -signal.SIGKILL
    assert ends(pid)
    assert server.process.stdout is not None
    assert server.process.stdout.read() == b""  # its pipe closed with it
