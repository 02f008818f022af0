"""The cases of the fault table (tests/trust/fault_table.py), one function each:
``case(data_dir, scratch_dir) -> Result``. Each runs the real CLI against a
misbehaving loopback server or a bad file and says whether the command ended as the
issue asks; the table compares the data folder before and after."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import threading
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path

from tests.support import served
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream
from tests.trust.support import KEY, ROOT, assista, no_traceback, state

MB = 1024 * 1024
RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]")


@dataclass
class Result:
    survived: bool
    message: str
    silent_loss: bool = False  # printed and reported saved, but not stored whole
    replaces_database: bool = False  # the case damages the database on purpose


def said(done: subprocess.CompletedProcess[str]) -> str:
    """What the command told the user: its first stderr line (else stdout's)."""
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    return lines[0] if lines else (done.stdout.strip().splitlines() or [""])[0]


def clean(done: subprocess.CompletedProcess[str]) -> bool:
    return no_traceback(done) and "MemoryError" not in done.stderr


def env(extra: dict[str, str] | None = None) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    return {**environ, **KEY, **(extra or {})}


def stored_texts(data: Path) -> list[str]:
    doc = json.loads(state(data)[0])
    return ["".join(str(p.get("text", "")) for p in m["parts"])
            for s in doc["sessions"] for m in s["messages"] if m["role"] == "assistant"]


def memory_cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1024 * MB, 1024 * MB))


# -- 1: saves -----------------------------------------------------------------------------


def locked_database(data: Path, scratch: Path) -> Result:
    from tests.trust.test_save_failures import Locker

    answer = "The whole answer, every word."
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        held = ScriptedResponse(chunks=text_stream(answer, chunk_size=4), hold_after=2)
        server.enqueue(held)
        child = subprocess.Popen(
            [sys.executable, "-m", "desktop", "ask", "--base-url", server.base_url,
             "--model", "gpt-test", "--data-dir", str(data), "hello"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
        try:
            held.holding.wait(30)
            locker = Locker(next(data.glob("*.sqlite3")))
            held.release()
            out, err = child.communicate(timeout=90)
        finally:
            child.kill()
        locker.stop()
    done = subprocess.CompletedProcess([], child.returncode, out, err)
    silent = child.returncode == 0 and answer not in stored_texts(data)
    ok = child.returncode == 1 and "could not be saved" in err and clean(done)
    return Result(ok, said(done), silent_loss=silent)


# -- 2-4: tools -----------------------------------------------------------------------------


def ask_tool(data: Path, scratch: Path, name: str, args: dict[str, object], *,
             extra_env: dict[str, str] | None = None,
             timeout: float = 60) -> tuple[subprocess.CompletedProcess[str], str]:
    """One turn in which the model calls ``name``; returns the run and the stored
    tool result."""
    ws = scratch / "ws"
    ws.mkdir(exist_ok=True)
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue_tool_calls([(name, json.dumps(args))])
        server.enqueue_text("Done.")
        done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                       "--workspace", str(ws), "--allow", name, "--json", "go",
                       data_dir=data, env={**KEY, **(extra_env or {})}, timeout=timeout)
    results = [json.loads(line) for line in done.stdout.splitlines()
               if '"tool_run_finished"' in line]
    content = results[0]["result"]["content"] if results else ""
    return done, content


def command_secrets(data: Path, scratch: Path) -> Result:
    secrets = {"DB_PASSWORD": "hunter-fault-1", "GITHUB_TOKEN": "ghp_fault_2"}
    done, content = ask_tool(data, scratch, "run_command", {"command": "env"},
                             extra_env=secrets)
    leaked = [v for v in [*secrets.values(), KEY["OPENAI_API_KEY"]]
              if v in content or v in state(data)[0]]
    ok = done.returncode == 0 and '"exit_code": 0' in content.replace('":0', '": 0') \
        and not leaked and clean(done)
    return Result(ok, "env ran; no key, token or password reached it" if not leaked
                  else f"leaked: {leaked}")


def fetch_loopback(data: Path, scratch: Path) -> Result:
    with FakeOpenAIServer(models=["x"]) as target:
        done, content = ask_tool(data, scratch, "fetch_url",
                                 {"url": f"http://0x7f.1:{target.port}/v1/models"})
    message = json.loads(content)["error"]["message"] if '"error"' in content else content
    ok = done.returncode == 0 and '"error"' in content and "gpt" not in content and clean(done)
    return Result(ok, message)


def catastrophic_regex(data: Path, scratch: Path) -> Result:
    ws = scratch / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "long.txt").write_text("a" * 200_000 + "!\naaa\n")
    done, content = ask_tool(data, scratch, "search_files",
                             {"query": "(a+)+$", "regex": True}, timeout=60)
    ok = done.returncode == 0 and '"line": 2' in content.replace('":2', '": 2') and clean(done)
    return Result(ok, "(a+)+$ over a 200 KB line: searched, the loop kept turning")


# -- 5: limits ------------------------------------------------------------------------------


def limited_reply(kind: str) -> Callable[[Path, Path], Result]:
    def case(data: Path, scratch: Path) -> Result:
        from tests.trust.test_reply_limits import Handler

        Handler.release.clear()
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.kind = kind  # type: ignore[attr-defined]
        server.daemon_threads = True
        thread = served.serve(server)
        url = f"http://127.0.0.1:{server.server_address[1]}"
        extra = ("--provider", "ollama") if kind == "ndjson-line" else ()
        try:
            done = assista("ask", "--base-url", url if extra else url + "/v1", "--model", "m",
                           *extra, "hi", data_dir=data, env=KEY, preexec=memory_cap,
                           timeout=120)
        finally:
            Handler.release.set()
            served.stop(server, thread)
        ok = done.returncode == 1 and "stopped reading" in done.stderr and clean(done)
        return Result(ok, said(done))
    return case


def huge_import(zipped: bool) -> Callable[[Path, Path], Result]:
    def case(data: Path, scratch: Path) -> Result:
        if zipped:
            path = scratch / "export.zip"
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive, archive.open(
                    "conversations.json", "w", force_zip64=True) as entry:
                for _ in range(513):
                    entry.write(b" " * MB)
        else:
            path = scratch / "conversations.json"
            with path.open("wb") as handle:
                handle.truncate(513 * MB)
        done = assista("import", str(path), data_dir=data, preexec=memory_cap, timeout=120)
        ok = done.returncode == 1 and "more than 512 MB" in done.stderr and clean(done)
        return Result(ok, said(done))
    return case


# -- 6: spoofing ----------------------------------------------------------------------------


def terminal_escapes(data: Path, scratch: Path) -> Result:
    from tests.trust.test_hostile_text import ESCAPES, ask_on_a_terminal

    ws = scratch / "ws"
    ws.mkdir(exist_ok=True)
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue_tool_calls([("write_file", '{"path": "a' + ESCAPES + '"}')])
        server.enqueue_text("done")
        code, terminal = ask_on_a_terminal("--base-url", server.base_url, "--model",
                                           "gpt-test", "--workspace", str(ws), "--tools",
                                           "write_file", "hi", data=data)
    raw = RAW_CONTROLS.search(terminal.replace("\n", ""))
    line = next((ln for ln in terminal.splitlines() if "⚙" in ln), "")
    return Result(code == 0 and raw is None and "\\x1b[2J" in terminal, line.strip())


def markup_in_widgets(data: Path, scratch: Path) -> Result:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/ui/test_plain_text.py"], capture_output=True, text=True, cwd=ROOT,
        env={**env(), "QT_QPA_PLATFORM": "offscreen"}, timeout=300, check=False)
    summary = (done.stdout.strip().splitlines() or [""])[-1]
    return Result(done.returncode == 0, f"hypothesis, 4 widgets x hostile markup: {summary}")


# -- 7: leaks and silent repairs ------------------------------------------------------------


def url_password(data: Path, scratch: Path) -> Result:
    from desktop.app import AppContext
    from desktop.core.settings import ProviderConfig

    secret = "hunter2-fault-table"
    os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        ctx = AppContext.open(str(data), log_to_stderr=False)
        try:
            base = server.base_url.replace("http://", f"http://bob:{secret}@")
            config = ProviderConfig(name="Locked", base_url=base, model="gpt-test",
                                    headers={"X-Corp-Token": "corp-" + secret})
            ctx.settings_store.save_provider(config)
            ctx.secrets.set(config.id, KEY["OPENAI_API_KEY"])
            keys = ctx.paths.secrets_path
        finally:
            ctx.close()
        server.enqueue_error(400, "the request was refused")
        done = assista("ask", "--provider", "Locked", "hi", data_dir=data)
    holders = [str(p.relative_to(data)) for p in data.rglob("*")
               if p.is_file() and p != keys and secret.encode() in p.read_bytes()]
    ok = done.returncode == 1 and secret not in done.stderr and not holders and clean(done)
    return Result(ok, said(done) + (f" (in: {holders})" if holders else ""))


def damaged_database(data: Path, scratch: Path) -> Result:
    db = next(data.glob("*.sqlite3"))
    original = db.read_bytes()
    damaged = b"not a database any more " * 400
    db.write_bytes(damaged)
    for leftover in data.glob("*.sqlite3-*"):
        leftover.unlink()
    done = assista("export", "--format", "json", data_dir=data)
    found = re.search(r"moved aside to (\S+damaged\S*)", done.stderr)
    moved = Path(found.group(1).rstrip(";.")) if found else None
    kept_aside = moved is not None and moved.exists() and moved.read_bytes() == damaged
    ok = done.returncode == 1 and kept_aside and clean(done)
    del original
    return Result(ok, said(done), silent_loss=not kept_aside, replaces_database=True)


# -- 8: bad input ---------------------------------------------------------------------------


def invalid_utf8(data: Path, scratch: Path) -> Result:
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue_text("ok")
        done = subprocess.run(
            [sys.executable.encode(), b"-m", b"desktop", b"ask", b"--base-url",
             server.base_url.encode(), b"--model", b"gpt-test", b"--data-dir",
             str(data).encode(), b"caf\xe9 \xff"],
            capture_output=True, env=env(), cwd=ROOT, timeout=60, check=False)
    run = subprocess.CompletedProcess([], done.returncode, done.stdout.decode(),
                                      done.stderr.decode())
    return Result(done.returncode == 0 and "not valid UTF-8" in run.stderr and clean(run),
                  said(run))


def reader_goes_away(data: Path, scratch: Path) -> Result:
    answer = "One two three four five six seven eight nine ten."
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        held = ScriptedResponse(chunks=text_stream(answer, chunk_size=4), hold_after=2)
        server.enqueue(held)
        child = subprocess.Popen(
            [sys.executable, "-m", "desktop", "ask", "--base-url", server.base_url,
             "--model", "gpt-test", "--data-dir", str(data), "count"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(), cwd=ROOT)
        assert child.stdout is not None and child.stderr is not None
        try:
            child.stdout.read(3)
            child.stdout.close()
            held.release()
            err = child.stderr.read().decode()
            child.wait(60)
        finally:
            child.kill()
    whole = answer in stored_texts(data)
    ok = child.returncode in (0, 141) and whole and "Traceback" not in err
    return Result(ok, "`assista ask | head -c 3`: the whole answer stored",
                  silent_loss=not whole)


def silent_server(data: Path, scratch: Path) -> Result:
    import socket

    from desktop.app import AppContext

    ctx = AppContext.open(str(data), log_to_stderr=False)
    ctx.settings.update(request_timeout_s=5)
    ctx.close()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(listener.accept()[0]), daemon=True).start()
    try:
        done = assista("ask", "--base-url", f"http://127.0.0.1:{listener.getsockname()[1]}/v1",
                       "--model", "m", "hi", data_dir=data, env=KEY, timeout=60)
    finally:
        listener.close()
        for conn in accepted:
            conn.close()
    return Result(done.returncode == 1 and clean(done), said(done))


def full_disk_export(data: Path, scratch: Path) -> Result:
    target = scratch / "export.json"
    target.write_text("an older export\n")

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))

    done = assista("export", "--format", "json", "-o", str(target), data_dir=data,
                   preexec=small_files)
    ok = done.returncode == 1 and target.read_text() == "an older export\n" and clean(done)
    return Result(ok, said(done))


def wrongly_typed_import(data: Path, scratch: Path) -> Result:
    path = scratch / "conversations.json"
    path.write_text(json.dumps([{"mapping": [1, 2], "title": "x"}]))
    done = assista("import", str(path), data_dir=data)
    return Result(done.returncode in (0, 1) and clean(done), said(done))


def cyclic_import(data: Path, scratch: Path) -> Result:
    def node(nid: str, parent: str, children: list[str]) -> dict[str, object]:
        return {"id": nid, "parent": parent, "children": children,
                "message": {"id": "same", "author": {"role": "user"}, "create_time": 1.0,
                            "content": {"content_type": "text", "parts": [f"text {nid}"]}}}

    doc = [{"title": "Cycle", "conversation_id": "c-1", "current_node": "b",
            "mapping": {"a": node("a", "b", ["b"]), "b": node("b", "a", ["a"])}}]
    path = scratch / "conversations.json"
    path.write_text(json.dumps(doc))
    done = assista("import", str(path), data_dir=data, timeout=30)
    return Result(done.returncode in (0, 1) and clean(done), said(done))


# -- 9: agent undo --------------------------------------------------------------------------


def undo(changed_since: bool) -> Callable[[Path, Path], Result]:
    def case(data: Path, scratch: Path) -> Result:
        from tests.cli.test_undo_cmd import agent_writes

        ws = scratch / "ws"
        ws.mkdir()
        (ws / "a.txt").write_text("old\n")
        with FakeOpenAIServer(models=["gpt-test"]) as server:
            sid = agent_writes(server, data, ws, {"a.txt": "new\n", "b.txt": "created\n"})
        if changed_since:
            (ws / "a.txt").write_text("the user's edit\n")
        done = assista("undo", "--session", sid, data_dir=data)
        if changed_since:
            ok = (done.returncode == 1 and "changed since" in done.stderr
                  and (ws / "a.txt").read_text() == "the user's edit\n"
                  and (ws / "b.txt").exists())
        else:
            ok = (done.returncode == 0 and (ws / "a.txt").read_text() == "old\n"
                  and not (ws / "b.txt").exists())
        message = said(done) if changed_since else " · ".join(
            ln.split("\t")[0] + " " + Path(ln.split("\t")[1]).name
            for ln in done.stdout.splitlines())
        return Result(ok and clean(done), message)
    return case


CASES: list[tuple[int, str, Callable[[Path, Path], Result]]] = [
    (1, "database locked while the answer is saved", locked_database),
    (2, "run_command with keys in the environment", command_secrets),
    (3, "fetch_url to loopback (0x7f.1)", fetch_loopback),
    (4, "search_files with a catastrophic regex", catastrophic_regex),
    (5, "SSE line that never ends (ulimit -v 1 GB)", limited_reply("sse-line")),
    (5, "NDJSON line that never ends (ulimit -v)", limited_reply("ndjson-line")),
    (5, "gzip-bombed JSON answer (ulimit -v)", limited_reply("gzip-json")),
    (5, "513 MB import file (ulimit -v)", huge_import(zipped=False)),
    (5, "zip bomb import (ulimit -v)", huge_import(zipped=True)),
    (6, "escape sequences in a tool call, on a TTY", terminal_escapes),
    (6, "markup from a model in the window", markup_in_widgets),
    (7, "password in a base URL, custom header", url_password),
    (7, "damaged database, then export", damaged_database),
    (8, "prompt that is not UTF-8", invalid_utf8),
    (8, "`assista ask | head -c 3`", reader_goes_away),
    (8, "server that never answers", silent_server),
    (8, "export to a full disk", full_disk_export),
    (8, "import of a wrongly typed export", wrongly_typed_import),
    (8, "import whose nodes form a cycle", cyclic_import),
    (9, "undo the agent's last turn", undo(changed_since=False)),
    (9, "undo after the user changed a file", undo(changed_since=True)),
]
