"""``assista ask --research`` as a real process, against a loopback web and model: the
cited report on stdout, the progress on stderr, the report saved and exported like any
answer; a limit given on the command line is said; Ctrl+C keeps what was found."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from desktop.app import AppContext
from tests.cli.test_ask_lifecycle import ROOT, environ, exported, text_of
from tests.support import forked_cli
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream
from tests.support.research_web import Page, ResearchWeb, research_web

PAGES = [Page("/tides", "Tides explained", "The Moon's gravity raises two tidal bulges.",
              ("tides", "moon")),
         Page("/spring", "Spring tides", "Spring tides happen at new and full moon.",
              ("spring",))]
PLAN = "STEP: Learn what causes tides\nQUERY: what causes tides"
REPORT = "Tides come from the Moon's gravity [1]; spring tides at new and full moon [2]."


def _settings(data: Path, web: ResearchWeb) -> None:
    ctx = AppContext.open(data, environ={}, log_to_stderr=False)
    ctx.settings.update(web_search_service="searxng", web_search_url=web.url,
                        fetch_allow_hosts=["127.0.0.1"])
    ctx.close()


def _ask(server: FakeOpenAIServer, data: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "desktop", "ask", "--base-url", server.base_url,
            "--model", "gpt-test", "--data-dir", str(data), "--research", *args]


def test_ask_research_prints_a_cited_report_and_saves_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server, research_web(PAGES) as web:
        _settings(data, web)
        for answer in (PLAN, "QUERY: spring tides", "DONE", REPORT):
            server.enqueue_text(answer)
        done = forked_cli.run(_ask(server, data, "What causes tides?"), capture_output=True,
                              text=True, env=environ(), cwd=ROOT, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert sorted(web.reads) == sorted(["/tides", "/spring"])
    assert done.stdout.startswith(REPORT)
    assert done.stdout.endswith(
        f"## Sources\n\n- [1] Tides explained: {web.url}/tides\n"
        f"- [2] Spring tides: {web.url}/spring\n")
    assert "research: plan:\nresearch:   - Learn what causes tides\n" in done.stderr
    assert "research: searching: what causes tides\n" in done.stderr
    assert f"research: read [2] Spring tides <{web.url}/spring>\n" in done.stderr
    assert "research: 2 searches, 2 sources read, 60 tokens" in done.stderr
    [chat] = exported(data)
    messages = chat["messages"]
    assert isinstance(messages, list)
    assert text_of(messages[-1]) == done.stdout  # stored as the chat's answer


def test_ask_research_limits_from_the_command_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server, research_web(PAGES) as web:
        _settings(data, web)
        server.enqueue_text(PLAN)
        server.enqueue_text("Tides come from the Moon [1].")
        done = forked_cli.run(_ask(server, data, "--max-rounds", "1", "What causes tides?"),
                              capture_output=True, text=True, env=environ(), cwd=ROOT,
                              timeout=60, check=False)
        bad = forked_cli.run(_ask(server, data, "--max-cost", "-1", "tides?"),
                             capture_output=True, text=True, env=environ(), cwd=ROOT,
                             timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "research: stopped at its limit of 1 search rounds\n" in done.stderr
    assert "*The research stopped at its limit of 1 search rounds.*" in done.stdout
    assert len(server.chat_requests) == 2
    assert bad.returncode == 1
    assert bad.stderr == "assista: error: --max-cost cannot be negative\n"


#: Runs the command (``-m desktop ...``) with SIGINT at its default.
DEFAULT_SIGINT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                  "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")


def test_ctrl_c_keeps_a_partial_report_of_what_was_found(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server, research_web(PAGES) as web:
        _settings(data, web)
        server.enqueue_text(PLAN)
        held = ScriptedResponse(chunks=text_stream("QUERY: spring tides"), hold_after=1)
        server.enqueue(held)  # "what next?" hangs; the user presses Ctrl+C
        # (Ctrl+C reaches it even if this test process ignores SIGINT, which a child
        # would inherit: the command then waited out the 60 s in two CI runs)
        command = _ask(server, data, "What causes tides?")
        child = subprocess.Popen([command[0], "-c", DEFAULT_SIGINT, *command[1:]],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=environ(), cwd=ROOT)
        try:
            assert held.holding.wait(60)
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=60)
        finally:
            held.release()
            child.kill()
    printed = out.decode()
    assert child.returncode == 130, err
    assert "The research was stopped before it finished." in printed
    assert "The Moon's gravity raises two tidal bulges. [1]" in printed
    assert re.search(rf"- \[1\] Tides explained: {re.escape(web.url)}/tides\n$", printed)
    assert "research: stopped; the report is what was found so far" in err.decode()
    [chat] = exported(data)
    messages = chat["messages"]
    assert isinstance(messages, list)
    assert messages[-1]["status"] == "stopped" and text_of(messages[-1]) == printed
    assert os.path.isdir(data)


def test_ask_research_json_prints_the_progress_as_events(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server, research_web(PAGES) as web:
        _settings(data, web)
        server.enqueue_text(PLAN)
        server.enqueue_text("Tides come from the Moon [1].")
        done = forked_cli.run(_ask(server, data, "--json", "--max-rounds", "1", "tides?"),
                              capture_output=True, text=True, env=environ(), cwd=ROOT,
                              timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    progress = [e for e in events if e["type"] == "research_progress"]
    assert progress[-1]["phase"] == "done" and progress[-1]["stop"] == "rounds"
    assert progress[-1]["pages"] == [["Tides explained", f"{web.url}/tides"]]
    assert events[-1]["type"] == "messages" and events[-1]["status"] == "complete"
    assert "research:" not in done.stderr  # (the events say it)
