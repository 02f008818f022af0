"""Memory from the command line, as real processes against a loopback server that
records the requests: a fact the model remembers in one chat reaches the system prompt
of the next; ``--no-memory`` and ``--temporary`` leave it out; ``assista memory``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.cli.test_ask_export import KEY, ROOT
from tests.support import forked_cli
from tests.support.openai_server import FakeOpenAIServer


def run(*args: str, data: Path, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environ.update({"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", **KEY,
                    **(env or {})})
    return forked_cli.run([sys.executable, "-m", "desktop", *args, "--data-dir", str(data)],
                          capture_output=True, text=True, env=environ, cwd=ROOT, timeout=60,
                          check=False)


def ask(server: FakeOpenAIServer, data: Path, *extra: str, prompt: str = "hi"
        ) -> subprocess.CompletedProcess[str]:
    return run("ask", "--base-url", server.base_url, "--model", "gpt-test", *extra, prompt,
               data=data)


def system_of(body: dict[str, Any]) -> str:
    first = body["messages"][0]
    return str(first["content"]) if first["role"] == "system" else ""


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


def test_a_fact_remembered_in_one_chat_reaches_the_next(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue_tool_calls([("remember", json.dumps(
            {"fact": "The user's dog is called Pixel."}))])
        server.enqueue_text("I will remember that.")
        first = ask(server, data, "--allow", "remember",
                    prompt="Remember that my dog is called Pixel.")
        assert first.returncode == 0, first.stderr
        assert "remember" in tool_names(server.chat_requests[0].json)
        assert "Pixel" not in system_of(server.chat_requests[0].json)
        # the tool's result went back to the model
        tool_message = server.chat_requests[1].json["messages"][-1]
        assert tool_message["role"] == "tool" and '"saved":true' in tool_message["content"]

        listed = run("memory", "list", data=data)
        assert listed.returncode == 0, listed.stderr
        memory_id, scope, text = listed.stdout.strip().split("\t")
        assert (scope, text) == ("global", "The user's dog is called Pixel.")

        server.enqueue_text("Pixel!")
        second = ask(server, data, prompt="What is my dog's name?")
        assert second.returncode == 0, second.stderr
        system = system_of(server.chat_requests[-1].json)
        assert "<memory>The user's dog is called Pixel.</memory>" in system

        for flag in ("--no-memory", "--temporary"):
            server.enqueue_text("I don't know.")
            done = ask(server, data, flag, prompt="What is my dog's name?")
            assert done.returncode == 0, done.stderr
            body = server.chat_requests[-1].json
            assert "Pixel" not in system_of(body)
            assert "remember" not in tool_names(body)

        forgot = run("memory", "forget", memory_id[:8], data=data)
        assert forgot.returncode == 0, forgot.stderr
        assert forgot.stdout == "forgot: The user's dog is called Pixel.\n"
        server.enqueue_text("I don't know.")
        assert ask(server, data, prompt="dog?").returncode == 0
        assert "Pixel" not in system_of(server.chat_requests[-1].json)


def test_temporary_keeps_nothing_and_no_memory_writes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue_text("ok")
        assert ask(server, data, "--temporary", prompt="a secret chat").returncode == 0
        exported = run("export", "--format", "json", data=data)
        assert exported.returncode == 0, exported.stderr
        assert json.loads(exported.stdout)["sessions"] == []
        # the model asks to remember in a --no-memory chat: there is no such tool
        server.enqueue_tool_calls([("remember", json.dumps({"fact": "likes tea"}))])
        server.enqueue_text("ok")
        done = ask(server, data, "--no-memory", "--allow", "remember", prompt="I like tea")
        assert done.returncode == 0, done.stderr
    assert run("memory", "list", data=data).stdout == ""


def test_memory_add_list_and_errors(tmp_path: Path) -> None:
    data = tmp_path / "data"
    added = run("memory", "add", "Prefers metric units", data=data)
    assert added.returncode == 0, added.stderr
    memory_id = added.stdout.strip()
    assert len(memory_id) == 32
    listed = run("memory", "list", data=data)
    assert listed.stdout == f"{memory_id}\tglobal\tPrefers metric units\n"
    missing = run("memory", "add", "x", "--project", "Garden", data=data)
    assert missing.returncode == 1
    assert "no project named 'Garden'" in missing.stderr
    assert run("memory", "list", "--project", "Garden", data=data).returncode == 1
    unknown = run("memory", "forget", "zzzz", data=data)
    assert unknown.returncode == 1 and "no memory with id 'zzzz'" in unknown.stderr
    empty = run("memory", "add", "   ", data=data)
    assert empty.returncode == 1 and "A memory needs some text." in empty.stderr
