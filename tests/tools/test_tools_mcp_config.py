"""MCP configuration import, tool naming, schemas, result conversion and the login PATH."""

from __future__ import annotations

import json
import os
from pathlib import Path

import mcp_types as mt
import pytest

from desktop.core.errors import ConfigError
from desktop.tools.errors import ToolFailure
from desktop.tools.mcp import (
    McpServerConfig,
    exposed_name,
    load_mcp_config,
    merge_paths,
    parse_mcp_json,
    query_login_shell_path,
)
from desktop.tools.mcp.convert import convert_result, input_schema
from desktop.tools.mcp.stderr import StderrLog

CLAUDE_DESKTOP = {
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
        },
        "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
        "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}},
        "legacy": {"url": "https://example.com/sse"},
        "typed": {"type": "streamable-http", "url": "https://example.com/api"},
        "off": {"command": "foo", "disabled": True},
    }
}


def test_claude_desktop_file(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps(CLAUDE_DESKTOP))
    servers = {s.name: s for s in load_mcp_config(path)}
    assert list(servers) == ["filesystem", "time", "remote", "legacy", "typed", "off"]
    fs = servers["filesystem"]
    assert (fs.transport, fs.command, fs.args[0]) == ("stdio", "npx", "-y")
    assert servers["time"].env == {"TZ": "UTC"}
    remote = servers["remote"]
    assert (remote.transport, remote.url) == ("http", "https://example.com/mcp")
    assert remote.headers == {"Authorization": "Bearer x"}
    assert servers["legacy"].transport == "sse"
    assert servers["typed"].transport == "http"
    assert servers["off"].enabled is False
    assert "Bearer" not in remote.describe()


def test_pasted_variants() -> None:
    inner = json.dumps(CLAUDE_DESKTOP["mcpServers"])
    assert [s.name for s in parse_mcp_json(inner)][:2] == ["filesystem", "time"]
    vscode = json.dumps({"servers": {"t": {"type": "stdio", "command": "uvx", "args": ["x"]}}})
    assert parse_mcp_json(vscode)[0].command == "uvx"
    windsurf = json.dumps({"mcpServers": {"w": {"serverUrl": "http://127.0.0.1:9/mcp"}}})
    assert parse_mcp_json(windsurf)[0].url == "http://127.0.0.1:9/mcp"
    by_hand = json.dumps({"mcpServers": {"h": {"url": "https://h.example/mcp",
                                               "oauth_client_id": "app-1",
                                               "oauth_redirect_port": 8765}}})
    config = parse_mcp_json(by_hand)[0]
    assert (config.oauth_client_id, config.oauth_redirect_port) == ("app-1", 8765)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{nope", "not valid JSON"),
        ("[]", "must be a JSON object"),
        ('{"command": "npx"}', "single server without a name"),
        ('{"mcpServers": []}', "must map server names"),
        ('{"mcpServers": {}}', "lists no servers"),
        ('{"mcpServers": {"a": {"args": ["x"]}}}', "'a': a stdio server needs a command"),
        ('{"mcpServers": {"a": {"url": "ftp://x"}}}', "needs an http(s) URL"),
        (
            '{"mcpServers": {"a": {"type": "carrier-pigeon", "url": "http://x"}}}',
            "unknown transport",
        ),
        ('{"mcpServers": {"a": {"command": "x", "env": ["A=1"]}}}', "'env' must be an object"),
        ('{"mcpServers": {"a": 5}}', "must be a JSON object"),
    ],
)
def test_bad_configuration_is_one_clear_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_mcp_json(text)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read MCP configuration"):
        load_mcp_config(tmp_path / "nope.json")


def test_policies() -> None:
    config = McpServerConfig(name="s", command="x", tool_policies={"rm": "deny"})
    assert config.policy_for("rm", True) == "deny"
    assert config.policy_for("read", True) == "allow"
    assert config.policy_for("write", None) == "ask"
    assert config.model_copy(update={"default_policy": "allow"}).policy_for("write", False) == (
        "allow"
    )


def test_exposed_names_are_provider_safe() -> None:
    assert exposed_name("github", "create_issue") == "github__create_issue"
    assert exposed_name("My Server!", "tool.name:v2") == "My_Server__tool_name_v2"
    long = exposed_name("a" * 40, "b" * 40)
    assert len(long) == 64
    assert long != exposed_name("a" * 40, "b" * 39 + "c")  # the hash keeps them apart
    taken = {"s__t"}
    assert exposed_name("s", "t", taken) == "s__t_2"
    for name in (long, exposed_name("ü", "…")):
        assert all(c.isascii() and (c.isalnum() or c in "_-") for c in name)


def test_input_schema_fallbacks() -> None:
    good = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    assert input_schema(good) == good
    assert input_schema(None) == {"type": "object"}
    assert input_schema({"properties": {"a": {"type": "string"}}})["type"] == "object"
    broken = {"type": "object", "properties": {"a": {"type": "nonsense"}}}
    assert input_schema(broken) == {"type": "object"}


def test_convert_result_shapes() -> None:
    image = mt.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")
    blob = mt.EmbeddedResource(
        type="resource",
        resource=mt.BlobResourceContents(uri="file:///a.bin", blob="AAEC", mime_type="app/x"),
    )
    link = mt.ResourceLink(type="resource_link", uri="file:///b.txt", name="b")
    output = convert_result(mt.CallToolResult(content=[image, blob, link]))
    content = output.result["content"]
    assert content[0]["size_bytes"] == 8 and "data" not in content[0]
    assert content[1] == {
        "type": "resource",
        "uri": "file:///a.bin",
        "mime_type": "app/x",
        "size_bytes": 3,
        "note": "Binary content, not included.",
    }
    assert content[2] == {"type": "resource_link", "uri": "file:///b.txt", "name": "b"}
    assert output.provider_data == {"images": [{"mime_type": "image/png", "data": "iVBORw0KGgo="}]}
    structured = convert_result(
        mt.CallToolResult(
            content=[mt.TextContent(type="text", text='{"x": 1}')], structured_content={"x": 1}
        )
    )
    assert structured.result == {"structured_content": {"x": 1}}  # the text only repeated it
    with pytest.raises(ToolFailure) as info:
        convert_result(mt.CallToolResult(content=[], is_error=True))
    assert info.value.code == "mcp_tool_error"


def test_merge_paths(tmp_path: Path) -> None:
    extra = tmp_path / "extra-bin"
    extra.mkdir()
    merged = merge_paths("/a:/b", "/b:/c", extra=[str(extra), str(tmp_path / "missing")])
    assert merged.split(os.pathsep) == ["/a", "/b", "/c", str(extra)]


def test_login_shell_path_query(tmp_path: Path) -> None:
    shell = tmp_path / "sh-login"
    shell.write_text(
        '#!/bin/sh\necho "welcome!"\nPATH=/opt/custom/bin:$PATH\nexport PATH\n'
        '[ "$1" = "-l" ] && shift\nexec /bin/sh "$@"\n'
    )
    shell.chmod(0o755)
    found = query_login_shell_path(str(shell))
    assert found is not None and found.startswith("/opt/custom/bin:")
    hanging = tmp_path / "sh-hang"
    hanging.write_text("#!/bin/sh\nexec sleep 1000\n")
    hanging.chmod(0o755)
    assert query_login_shell_path(str(hanging), timeout_s=0.3) is None
    assert query_login_shell_path("relative-shell") is None
    assert query_login_shell_path(str(tmp_path / "missing")) is None


def test_stderr_ring_buffer() -> None:
    log = StderrLog(max_lines=3)
    read_fd, write_fd = os.pipe()
    thread = log.start_reader(read_fd)
    os.write(write_fd, b"one\ntwo\nthr")
    os.write(write_fd, b"ee\nfour\nfive")
    os.close(write_fd)
    thread.join(10)
    assert log.lines() == ["three", "four", "five"]
    assert log.total == 5
    assert log.wait_for("four", 0.1) and not log.wait_for("one", 0.01)
