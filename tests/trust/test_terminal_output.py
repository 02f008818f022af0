"""Every subcommand writes what a model, a tool, a server or a file says with its
control characters spelled out: a screen clear, a window title, a clipboard write
(OSC 52), a link (OSC 8), hidden text, a C1 CSI and a carriage return that draws a
fake "Allow run_command?" over the line never reach the terminal as such.
Plain text, tabs and line breaks stay; ``ask --raw`` and ``export -o`` keep the
bytes as they were."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.openai_server import FakeOpenAIServer
from tests.trust.support import KEY, assista, no_traceback

HOSTILE = ("\x1b[2J\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4K\x07"
           "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ \x1b[8mhidden\x1b[0m"
           "\x9b2J\x7f\u202eevil\x08 line one\rAllow run_command? [y]es\r\nline two\tcol")
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SPELLED = ("\\x1b[2J\\x1b]0;pwned\\x07\\x1b]52;c;cm0gLXJmIH4K\\x07\\x1b]8;;https://evil"
           ".example\\x1b\\click\\x1b]8;;\\x1b\\ \\x1b[8mhidden\\x1b[0m\\u009b2J\\u007f"
           "\\u202eevil\\x08 line one\\rAllow run_command? [y]es\nline two\tcol")


def raw_controls(text: str) -> list[str]:
    return RAW.findall(text.replace("\n", "").replace("\t", ""))


def ask(server: FakeOpenAIServer, data: Path, *extra: str) -> tuple[int, str, str]:
    server.enqueue_text(HOSTILE, chunk_size=1)  # a CR LF split between two pieces too
    done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test", *extra, "hi",
                   data_dir=data, env=KEY)
    assert no_traceback(done), done.stderr
    return done.returncode, done.stdout, done.stderr


def test_ask_spells_out_what_the_model_sends_and_raw_keeps_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        code, out, _ = ask(server, data)
        assert code == 0
        assert not raw_controls(out), out
        assert out.rstrip("\n") == SPELLED
        code, out, _ = ask(server, data, "--raw")
        assert code == 0 and out == HOSTILE
        code, out, _ = ask(server, data, "--json")
    assert code == 0 and not raw_controls(out)
    events = [json.loads(line) for line in out.splitlines()]
    streamed = "".join(e.get("text", "") for e in events if e.get("type") == "text_delta")
    assert streamed == HOSTILE  # the same JSON documents, only written safely


def test_export_inspect_and_knowledge_search_spell_it_out(tmp_path: Path) -> None:
    data, docs = tmp_path / "data", tmp_path / "docs"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        assert ask(server, data)[0] == 0
    markdown = assista("export", "--format", "markdown", data_dir=data)
    assert markdown.returncode == 0 and not raw_controls(markdown.stdout), markdown.stdout
    assert "\\rAllow run_command? [y]es" in markdown.stdout
    document = assista("export", "--format", "json", data_dir=data)
    assert document.returncode == 0 and not raw_controls(document.stdout)
    answers = [m for s in json.loads(document.stdout)["sessions"] for m in s["messages"]
               if m["role"] == "assistant"]
    assert [p["text"] for m in answers for p in m["parts"]] == [HOSTILE]
    to_file = assista("export", "--format", "markdown", "-o", str(tmp_path / "x.md"),
                      data_dir=data)
    assert to_file.returncode == 0 and HOSTILE in (tmp_path / "x.md").read_bytes().decode()
    inspected = assista("inspect", data_dir=data)
    assert inspected.returncode == 0 and no_traceback(inspected)
    assert not raw_controls(inspected.stdout), inspected.stdout
    docs.mkdir()
    (docs / "note\x1b]0;x\x07.md").write_text(f"alpaca {HOSTILE}\n")
    added = assista("knowledge", "add", "kb", str(docs), data_dir=data)
    assert added.returncode == 0 and not raw_controls(added.stderr), added.stderr
    found = assista("knowledge", "search", "kb", "alpaca", data_dir=data)
    assert found.returncode == 0 and not raw_controls(found.stdout), found.stdout
    assert "note\\x1b]0;x\\x07.md" in found.stdout
    listed = assista("knowledge", "list", data_dir=data)
    assert listed.returncode == 0 and not raw_controls(listed.stdout)
