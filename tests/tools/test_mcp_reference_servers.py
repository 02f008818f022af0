"""The MCP client against the protocol's reference server (server-everything, from npm)
over each transport it offers: every list, calls, progress, annotations, conditional
tools; and ``assista mcp list`` / ``assista ask --json`` against it from outside."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.messages import ToolCallPart
from desktop.tools import ToolExecutor
from desktop.tools.approval import ToolProgress, allow_all
from desktop.tools.mcp import McpManager, McpServerConfig
from desktop.tools.mcp.server_requests import (
    ElicitationAnswer,
    ElicitationRequest,
    SamplingAnswer,
    SamplingRequest,
)
from tests.support import forked_cli
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, tool_call_stream
from tests.tools.mcp_reference import PLAIN_PATH, NodeServer, config, everything_command

CONDITIONAL = {"trigger-elicitation-request", "trigger-sampling-request"}


async def decline(request: ElicitationRequest) -> ElicitationAnswer:
    return ElicitationAnswer.decline()


async def answer(request: SamplingRequest) -> SamplingAnswer:
    return SamplingAnswer(text="sampled", model="test")


@pytest.fixture(scope="module")
def http_servers() -> Iterator[dict[str, NodeServer]]:
    everything_command()
    servers = {"http": NodeServer("streamableHttp"), "sse": NodeServer("sse")}
    try:
        yield servers
    finally:
        for server in servers.values():
            server.stop()


@pytest.fixture(params=["stdio", "http", "sse"])
async def everything(request: pytest.FixtureRequest) -> AsyncIterator[McpManager]:
    servers = request.getfixturevalue("http_servers") if request.param != "stdio" else None
    mcp = McpManager([config(request.param, servers)], login_path=PLAIN_PATH,
                     backoff_s=0.01, elicitor=decline, sampler=answer)
    assert await mcp.start_all() == {"everything": True}
    try:
        yield mcp
    finally:
        await mcp.stop_all()


async def call(mcp: McpManager, name: str, args: dict[str, Any],
               progress: list[ToolProgress] | None = None) -> dict[str, Any]:
    executor = ToolExecutor(mcp.registry(), None, approver=allow_all,
                            on_progress=progress.append if progress is not None else None)
    part = await executor.run(ToolCallPart(id="c", name=f"everything__{name}",
                                           arguments=json.dumps(args)))
    result: dict[str, Any] = json.loads(part.content)
    result["_provider_data"] = part.provider_data
    return result


async def test_every_list_over_each_transport(everything: McpManager) -> None:
    connection = everything.connections["everything"]
    tools = {t.name for t in connection.lists.tools}
    assert {"echo", "get-sum", "get-annotated-message"} <= tools
    assert tools >= CONDITIONAL  # offered because elicitation and sampling are announced
    assert {p.name for p in connection.lists.prompts} >= {"simple-prompt", "args-prompt"}
    assert any(str(r.uri).startswith("demo://resource/static/") for r in
               connection.lists.resources)
    assert any("{resourceId}" in t.uri_template for t in connection.lists.templates)


async def test_calls_sum_and_echo(everything: McpManager) -> None:
    assert "hello" in json.dumps(await call(everything, "echo", {"message": "hello"}))
    assert "5" in json.dumps(await call(everything, "get-sum", {"a": 2, "b": 3}))


async def test_content_for_the_user_only_never_reaches_the_model(everything: McpManager) -> None:
    result = await call(everything, "get-annotated-message", {"messageType": "success"})
    assert "Operation completed successfully" not in json.dumps(result["result"])
    assert "Operation completed successfully" in json.dumps(result["_provider_data"])
    both = await call(everything, "get-annotated-message", {"messageType": "error"})
    assert "Error: Operation failed" in json.dumps(both["result"])


async def test_progress_notifications_reach_the_call(everything: McpManager) -> None:
    heard: list[ToolProgress] = []
    await call(everything, "trigger-long-running-operation", {"duration": 0.3, "steps": 3},
               heard)
    steps = [p for p in heard if p.kind == "progress"]
    assert len(steps) >= 2 and steps[-1].total == 3


async def test_sampling_request_is_answered(everything: McpManager) -> None:
    result = await call(everything, "trigger-sampling-request", {"prompt": "hi"})
    assert "sampled" in json.dumps(result)


def cli(home: Path, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "XDG_"))}
    return forked_cli.run([sys.executable, "-m", "desktop", *args], text=True,
                          capture_output=True, env={**env, "HOME": str(home), **kwargs.pop(
                              "env", {})}, timeout=180, check=False, **kwargs)


def config_file(path: Path) -> Path:
    command, *args = everything_command()
    path.write_text(json.dumps({"mcpServers": {"everything": {
        "command": command, "args": [*args, "stdio"]}}}), encoding="utf-8")
    return path


def test_mcp_list_shows_what_ask_offers(tmp_path: Path) -> None:
    done = cli(tmp_path, "mcp", "list", "--mcp-config", str(config_file(tmp_path / "m.json")))
    assert done.returncode == 0, done.stderr
    tools = {line.split("\t")[2] for line in done.stdout.splitlines() if "\ttool\t" in line}
    assert tools >= CONDITIONAL


def test_ask_json_prints_progress(tmp_path: Path) -> None:
    with FakeOpenAIServer() as model:
        model.enqueue(ScriptedResponse(chunks=tool_call_stream([(
            "everything__trigger-long-running-operation",
            json.dumps({"duration": 0.2, "steps": 2}))])))
        model.enqueue_text("Done.")
        done = cli(tmp_path, "ask", "--json", "--base-url", model.base_url, "--model", "m",
                   "--mcp-config", str(config_file(tmp_path / "m.json")),
                   "--allow", "everything__trigger-long-running-operation", "Run it",
                   env={"OPENAI_API_KEY": "sk-test"})
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    progress = [e for e in events if e["type"] == "tool_progress"]
    assert len(progress) >= 1 and progress[-1]["total"] == 2, events


async def test_a_server_that_exits_at_start_says_why(tmp_path: Path) -> None:
    script = tmp_path / "broken.py"
    script.write_text("import sys\nprint('config file missing: /etc/none.toml', "
                      "file=sys.stderr)\nsys.exit(3)\n", encoding="utf-8")
    mcp = McpManager([McpServerConfig(name="broken", command=sys.executable,
                                      args=[str(script)], startup_timeout_s=30)],
                     login_path=PLAIN_PATH, backoff_s=0.01, max_failures=0)
    try:
        assert await mcp.start_all() == {"broken": False}
        connection = mcp.connections["broken"]
        await connection.wait_for_state("failed", timeout_s=30)
        assert "config file missing: /etc/none.toml" in (connection.last_error or "")
    finally:
        await mcp.stop_all()


def test_resources_only_server_is_listed_without_tools(tmp_path: Path) -> None:
    script = tmp_path / "resources_only.py"
    script.write_text(RESOURCES_ONLY, encoding="utf-8")
    cfg = tmp_path / "r.json"
    cfg.write_text(json.dumps({"mcpServers": {"docs": {
        "command": sys.executable, "args": [str(script)]}}}), encoding="utf-8")
    done = cli(tmp_path, "mcp", "list", "--mcp-config", str(cfg))
    assert done.returncode == 0, done.stderr
    assert "docs\tresource\tnote://one" in done.stdout
    asked = (tmp_path / "asked.txt").read_text(encoding="utf-8").split()
    assert "tools/list" not in asked and "resources/list" in asked


# A server written to the letter of the protocol on plain JSON-RPC: it announces only
# resources, and answers -32601 to everything it does not implement (templates too).
RESOURCES_ONLY = r'''
import json, sys, pathlib
asked = pathlib.Path(__file__).with_name("asked.txt")
for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    with asked.open("a") as f:
        f.write(f"{method}\n")
    if mid is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"resources": {}},
                  "serverInfo": {"name": "docs", "version": "1"}}
    elif method == "resources/list":
        result = {"resources": [{"uri": "note://one", "name": "one"}]}
    elif method == "ping":
        result = {}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": mid, "error": {
            "code": -32601, "message": "Method not found"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}), flush=True)
'''


def test_binary_resource_size_is_its_decoded_size() -> None:
    import base64

    import mcp_types as mt

    from desktop.tools.mcp.content import resource_parts

    blob = base64.b64encode(bytes(range(256)) * 1).decode()
    parts = resource_parts("s", [mt.BlobResourceContents(
        uri="x://b", mime_type="application/octet-stream", blob=blob)])
    assert "256 bytes" in parts[0].text  # type: ignore[union-attr]




async def test_a_cancelled_call_leaves_the_server_usable(everything: McpManager) -> None:
    """Stopped once its first progress arrives: the call ends at once (the server is
    told; server-everything goes on with the operation, its later progress for the
    cancelled call is ignored) and the next call works."""
    import asyncio

    started = asyncio.Event()
    connection = everything.connections["everything"]
    call_task = asyncio.create_task(connection.call_tool(
        "trigger-long-running-operation", {"duration": 2, "steps": 20}, 60,
        lambda progress, total, message: started.set()))
    await started.wait()
    call_task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call_task
    assert "hello again" in json.dumps(await call(everything, "echo", {"message": "hello again"}))
    assert connection.state == "running"
