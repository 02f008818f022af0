"""``assista mcp list`` and ``assista ask --prompt/--resource`` as real processes against
the SDK feature server (tests/tools/mcp_feature_server.py) over stdio and Streamable HTTP."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_ask_export import KEY, assista
from tests.support.openai_server import FakeOpenAIServer
from tests.tools.mcp_servers import FEATURES, ServerProcess

EXPECTED_LINES = [
    "features\ttool\tgrow", "features\ttool\tshrink", "features\ttool\tadd_prompt",
    "features\ttool\tbump", "features\ttool\tslow_count", "features\ttool\twait_forever",
    "features\ttool\tregister", "features\ttool\thaiku",
    "features\tprompt\treview", "features\tprompt\thello",
    "features\tresource\tmemo://readme", "features\tresource\tmemo://pixel",
    "features\tresource\tmemo://counter",
]


def config_file(tmp_path: Path, servers: dict[str, Any]) -> str:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return str(path)


STDIO = {"features": {"command": sys.executable, "args": [FEATURES, "stdio"]}}


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=["gpt-test"]) as fake:
        yield fake


def test_mcp_list_prints_one_line_per_tool_prompt_and_resource(tmp_path: Path) -> None:
    done = assista("mcp", "list", "--data-dir", str(tmp_path),
                   "--mcp-config", config_file(tmp_path, STDIO), data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == EXPECTED_LINES
    assert done.stderr == ""


def test_mcp_list_json_over_streamable_http(tmp_path: Path) -> None:
    http = ServerProcess(FEATURES, "http")
    try:
        servers = {"remote": {"type": "http", "url": http.url()}}
        done = assista("mcp", "list", "--json", "--data-dir", str(tmp_path),
                       "--mcp-config", config_file(tmp_path, servers), data_dir=tmp_path)
    finally:
        http.stop()
    assert done.returncode == 0, done.stderr
    [remote] = json.loads(done.stdout)["servers"]
    assert remote["name"] == "remote" and remote["state"] == "running"
    assert [t["name"] for t in remote["tools"]][:2] == ["grow", "shrink"]
    review = remote["prompts"][0]
    assert review["name"] == "review" and review["arguments"] == [
        {"name": "language", "description": "", "required": True},
        {"name": "focus", "description": "", "required": False}]
    assert remote["resources"][1] == {"uri": "memo://pixel", "name": "pixel",
                                      "mime_type": "image/png"}
    assert remote["resource_templates"] == [
        {"uri_template": "memo://notes/{topic}", "name": "notes", "mime_type": "text/plain"}]


def test_mcp_list_names_a_missing_command_at_once(tmp_path: Path) -> None:
    servers = {**STDIO, "gone": {"command": "assista-no-such-command-xyz"}}
    done = assista("mcp", "list", "--data-dir", str(tmp_path),
                   "--mcp-config", config_file(tmp_path, servers), data_dir=tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines() == EXPECTED_LINES  # the working server is still listed
    lines = done.stderr.splitlines()
    assert lines[0].startswith("assista: warning: MCP server 'gone' is not available: "
                               "command not found: assista-no-such-command-xyz")
    assert lines[1] == "assista: error: 1 MCP server(s) could not be listed: gone"


def test_mcp_list_without_servers_is_one_error_line(tmp_path: Path) -> None:
    done = assista("mcp", "list", "--data-dir", str(tmp_path), data_dir=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("assista: error: no MCP servers are configured")
    assert len(done.stderr.splitlines()) == 1


def ask(server: FakeOpenAIServer, tmp_path: Path, *args: str, model: str = "gpt-test") -> Any:
    return assista("ask", "--base-url", server.base_url, "--model", model, "--tools", "",
                   "--mcp-config", config_file(tmp_path, STDIO), *args,
                   data_dir=tmp_path, env=KEY)


def test_ask_with_a_prompt_sends_its_messages_then_the_text(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.enqueue_text("ok")
    done = ask(server, tmp_path, "--prompt", "features:review", "--prompt-arg", "language=Rust",
               "--prompt-arg", "focus=style", "def f(): pass")
    assert done.returncode == 0, done.stderr
    assert server.last_chat_body["messages"][-1] == {
        "role": "user",
        "content": "Review this Rust code for style.\n\n(assistant) Paste it and I will."
                   "\n\ndef f(): pass"}


def test_ask_with_a_prompt_alone_and_a_missing_argument(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.enqueue_text("ok")
    done = ask(server, tmp_path, "--prompt", "features:hello", "")
    assert done.returncode == 0, done.stderr
    assert server.last_chat_body["messages"][-1] == {"role": "user",
                                                     "content": "Hello from the prompt"}
    missing = ask(server, tmp_path, "--prompt", "features:review", "x")
    assert missing.returncode == 1
    assert missing.stderr == ("assista: error: prompt 'review' needs "
                              "--prompt-arg language=VALUE\n")


def test_ask_with_resources_attaches_text_and_images(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.enqueue_text("ok")
    done = ask(server, tmp_path, "--resource", "features:memo://readme",
               "--resource", "features:memo://pixel", "--resource", "features:memo://notes/rust",
               "What is this?", model="gpt-4o")  # a model that sees images
    assert done.returncode == 0, done.stderr
    content = server.last_chat_body["messages"][-1]["content"]
    texts = [c["text"] for c in content if c["type"] == "text"]
    assert texts[0] == "What is this?"
    assert "Attached file `memo://readme`:\n```\n# Read me\nThe feature server.\n```" in texts[1]
    assert "notes about rust" in texts[2]
    [image] = [c for c in content if c["type"] == "image_url"]
    assert image["image_url"]["url"].startswith("data:image/png;base64,iVBOR")


def test_ask_with_an_unknown_server_is_one_error_line(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    done = ask(server, tmp_path, "--resource", "nope:memo://readme", "q")
    assert done.returncode == 1
    assert done.stderr == "assista: error: no MCP server named 'nope' (configured: features)\n"


def test_ask_without_a_terminal_declines_elicitation_and_denies_sampling(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.enqueue_tool_calls([("features__register", "{}"),
                               ("features__haiku", '{"topic": "rain"}')])
    server.enqueue_text("done")
    done = ask(server, tmp_path, "--approve-all", "--allow", "features__register",
               "--allow", "features__haiku", "go")
    assert done.returncode == 0, done.stderr
    results = [m["content"] for m in server.last_chat_body["messages"] if m["role"] == "tool"]
    assert "not registered: decline" in results[0]
    assert "The user declined the sampling request." in results[1]
    assert len(server.chat_requests) == 2  # no sampling request reached the model
