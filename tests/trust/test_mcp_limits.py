"""An MCP server over stdio that answers too much or wrongly, spoken by hand
(tests/trust/mcp_raw_server.py): a 100 MB tool answer is read only up to the limit,
the model gets its beginning and a note that it was cut; a malformed ``initialize``
reply is one line naming the server and what was wrong."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from desktop.tools.mcp.stdio_lines import LineSplitter, Oversized, first_text, replacement
from tests.support.openai_server import FakeOpenAIServer
from tests.trust.support import KEY, assista, no_traceback

RAW = str(Path(__file__).with_name("mcp_raw_server.py"))
MB = 1024 * 1024


def config(tmp_path: Path, *args: str) -> str:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"raw": {"command": sys.executable,
                                                       "args": [RAW, *args]}}}))
    return str(path)


@pytest.mark.parametrize("order", ["id-first", "result-first"])
def test_a_100_mb_tool_answer_is_cut_with_a_note(tmp_path: Path, order: str) -> None:
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue_tool_calls([("raw__big", "{}")])
        server.enqueue_text("read it")
        done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                       "--mcp-config", config(tmp_path, "big", str(100 * MB), order),
                       "--allow", "raw__big", "go", data_dir=tmp_path / "data", env=KEY,
                       timeout=300)
        assert done.returncode == 0 and no_traceback(done), done.stderr
        assert done.stdout.strip() == "read it"
        sent = server.chat_requests[1].json["messages"]
    answer = next(m["content"] for m in sent if m["role"] == "tool")
    assert "0123456789abcdef0123456789abcdef" in answer
    assert "The MCP server's answer was 100 MB, more than the 16 MB Assista reads" in answer


def test_a_malformed_initialize_reply_is_one_line_naming_the_server(tmp_path: Path) -> None:
    done = assista("mcp", "list", "--mcp-config", config(tmp_path, "bad-init"),
                   data_dir=tmp_path / "data")
    assert done.returncode == 1 and no_traceback(done)
    warning, error = done.stderr.splitlines()
    assert warning == (
        "assista: warning: MCP server 'raw' is not available: its reply to initialize is "
        "not valid MCP (capabilities: Input should be a valid dictionary or instance of "
        "ServerCapabilities; protocolVersion: Input should be a valid string; serverInfo: "
        "Field required)")
    assert error == "assista: error: 1 MCP server(s) could not be listed: raw"


def test_the_splitter_keeps_the_start_and_the_end_of_a_long_line() -> None:
    splitter = LineSplitter(limit=10)
    lines = splitter.feed(b"short\n0123456789abcdef")
    lines += splitter.feed(b"ghij\nnext")
    assert lines[0] == b"short"
    assert lines[1] == Oversized(b"0123456789", b"abcdefghij", 20)
    assert splitter.feed(b"\n") == [b"next"]


def test_a_cut_answer_keeps_its_text_up_to_the_cut() -> None:
    assert first_text('{"content": [{"type": "text", "text": "ab\\u00e9\\n\\u00') == "abé\n"
    assert first_text('{"content": [{"type": "text", "text": "done"}, {"data": "AAA') == "done"
    line = Oversized(b'{"jsonrpc": "2.0", "id": "r-7", "result": {"x": "', b"", 50 * MB)
    error = json.loads(replacement(line, 16 * MB, {"r-7": "resources/read"}) or "")
    assert error["id"] == "r-7" and "50 MB" in error["error"]["message"]
    assert replacement(Oversized(b'{"method": "x", "params": "', b"", 50 * MB), 16 * MB,
                       {}) is None
