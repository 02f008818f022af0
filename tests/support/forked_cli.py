"""``python -m desktop ...`` for the tests, started as a fork of a warm interpreter.

The suite runs the real command line a few hundred times; each fresh interpreter spends
about half a CPU-second importing the app before the command starts. :func:`run` is
``subprocess.run`` for those commands: it asks one server process per test process,
which has imported the command line's modules once (nothing run, no thread started), to
fork; the child takes the caller's stdin/stdout/stderr, environment, working directory
and arguments and runs ``desktop.__main__`` as ``python -m`` does (``__main__``, the
non-zero exit of an uncaught exception, atexit handlers, threads joined, stdout flushed,
status 120 when that fails). It is a real process with its own pid, exit status and
pipes; only the interpreter start-up and the imports are shared.

A command is started fresh instead when something a fork cannot reproduce differs: an
interpreter setting read at start-up (``PYTHON*`` variables, locale variables) differs
from the server's, ``preexec_fn``/``start_new_session``/``pass_fds`` are used, or
``ASSISTA_TEST_FRESH_CLI=1`` asks for fresh processes throughout. Tests about the
process itself (what ``/proc/<pid>/environ`` shows, what start-up imports) keep
``subprocess`` directly.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

from tests.tools.mcp_warm import run_as_interpreter

ROOT = Path(__file__).resolve().parents[2]
PREFIX = [sys.executable, "-m", "desktop"]
#: Modules the command line imports at module level; imported once by the server.
WARM = ["desktop.cli.commands", "desktop.cli.context", "desktop.cli.ask",
        "desktop.cli.ask_compare", "desktop.cli.export", "desktop.cli.import_cmd",
        "desktop.cli.knowledge_cmd", "desktop.cli.mcp_cmd", "desktop.cli.sync_cmd",
        "desktop.tools.process_guard",
        # the subcommands' argument modules, which build_parser imports on every run
        "desktop.cli.inspect_cmd", "desktop.cli.knowledge_args", "desktop.cli.mcp_bundle_cmd",
        "desktop.cli.media_args", "desktop.cli.memory_args", "desktop.cli.project_args",
        "desktop.cli.research_args", "desktop.cli.skills_cmd", "desktop.cli.undo_cmd",
        # what a turn (``ask``) imports when it starts: httpx and the providers, the tool
        # executor and the inspector (about 0.15 CPU-seconds a run otherwise)
        "httpx", "desktop.providers.openai_chat", "desktop.providers.openai_responses",
        "desktop.providers.anthropic", "desktop.providers.gemini", "desktop.providers.ollama",
        "desktop.providers.images_api", "desktop.providers.web_search",
        "desktop.chat.sampling", "desktop.chat.web_search", "desktop.knowledge.chat_link",
        "desktop.skills.catalog", "desktop.storage.inspector_store",
        "desktop.storage.inspector_writer", "desktop.tools.executor",
        "desktop.tools.checkpoints",
        # the secret store (keyring: its backend is chosen on first use, in the child)
        # and the MCP manager, which ``mcp`` and ``ask`` load
        "desktop.storage.secrets", "desktop.tools.mcp.manager",
        # httpx's transport (loaded when a client is made), sync and knowledge indexing
        "httpcore", "h11", "anyio", "certifi", "desktop.providers.recording",
        "desktop.sync.run", "desktop.sync.push", "argon2",
        "desktop.knowledge.indexer", "desktop.knowledge.search"]
_HEADER = struct.Struct("!I")
_Env: TypeAlias = Mapping[str, str]


def _start_up_settings(env: _Env) -> dict[str, str]:
    """The variables an interpreter reads once, at start: they must match the server's."""
    return {k: v for k, v in env.items()
            if (k.startswith("PYTHON") and k != "PYTHON_KEYRING_BACKEND")
            or k in ("LANG", "LANGUAGE") or k.startswith("LC_")}


# --- the server (runs in its own interpreter) -------------------------------------------

def serve(path: str) -> None:
    """Listen on the Unix socket ``path`` until stdin closes (the test process ended)."""
    import gc
    import importlib

    for name in WARM:
        importlib.import_module(name)
    # What the imports made lives as long as the server: out of the collector's sight
    # (gc.freeze), a child's first collection does not walk all of it, writing to every
    # page it shares with the server (about 55 ms of each command's 75 otherwise).
    gc.collect()
    gc.freeze()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    if threading.active_count() != 1:  # a fork of a threaded process is unsafe
        raise SystemExit("forked_cli: importing the command line started a thread")
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "stdin")
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        for key, _ in selector.select():
            if key.data == "stdin":
                if not os.read(sys.stdin.fileno(), 4096):
                    return
            elif key.data == "accept":
                conn, _ = listener.accept()
                conn.setblocking(True)
                request, fds = _receive(conn)
                pid = os.fork()
                if pid == 0:
                    _child(request, fds)  # never returns
                for fd in fds:
                    os.close(fd)
                conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
                selector.register(os.pidfd_open(pid), selectors.EVENT_READ, (pid, conn))
            else:
                pid, conn = key.data
                selector.unregister(key.fd)
                os.close(key.fd)
                _, status = os.waitpid(pid, 0)
                with contextlib.suppress(OSError):
                    conn.sendall(json.dumps({"status": status}).encode() + b"\n")
                conn.close()


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    head, fds, _flags, _addr = socket.recv_fds(conn, _HEADER.size, 3)
    (size,) = _HEADER.unpack(head)
    body = b""
    while len(body) < size:
        body += conn.recv(size - len(body))
    request: dict[str, Any] = json.loads(body)
    return request, list(fds)


def _child(request: dict[str, Any], fds: list[int]) -> None:
    code = 70
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024)
        os.environ.clear()
        os.environ.update(request["env"])
        time.tzset()
        os.chdir(request["cwd"])
        sys.path[0] = os.getcwd()  # (``python -m`` puts the working directory first)
        sys.argv = [sys.executable, *request["args"]]
        code = _run_main()
    finally:
        os._exit(code)


def _run_main() -> int:
    """``python -m desktop`` from here on, including how the interpreter ends."""
    import runpy

    return run_as_interpreter(
        lambda: runpy.run_module("desktop", run_name="__main__", alter_sys=True))


# --- the client (the test process) ------------------------------------------------------

class _Server:
    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="assista-cli-")
        self.path = os.path.join(self.folder, "fork.sock")
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        self.env = env
        self.process = subprocess.Popen(
            [sys.executable, "-c", f"from tests.support.forked_cli import serve; "
                                   f"serve({self.path!r})"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT, env=env)
        assert self.process.stdout is not None
        ready = self.process.stdout.readline()
        if ready != b"ready\n":
            self.process.wait(30)
            raise RuntimeError("the CLI fork server did not start")

    def start(self, args: Sequence[str], env: _Env, cwd: str,
              fds: tuple[int, int, int]) -> tuple[socket.socket, int]:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(self.path)
        body = json.dumps({"args": list(args), "env": dict(env), "cwd": cwd}).encode()
        socket.send_fds(conn, [_HEADER.pack(len(body))], list(fds))
        conn.sendall(body)
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = conn.recv(1)
            if not chunk:
                raise RuntimeError("the CLI fork server went away")
            reply += chunk
        return conn, int(json.loads(reply)["pid"])

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for name in os.listdir(self.folder):
            os.unlink(os.path.join(self.folder, name))
        os.rmdir(self.folder)


_server: _Server | None = None
_lock = threading.Lock()
#: How many commands :func:`run` forked and started fresh (its own test reads them).
started = {"forked": 0, "fresh": 0}


def _the_server() -> _Server | None:
    global _server
    with _lock:
        if _server is None and hasattr(os, "pidfd_open") and hasattr(socket, "send_fds"):
            _server = _Server()
            atexit.register(_server.close)
        return _server


def _forkable(command: Sequence[str], kwargs: dict[str, Any]) -> bool:
    if list(command[:3]) != PREFIX or os.environ.get("ASSISTA_TEST_FRESH_CLI") == "1":
        return False
    unsupported = {"preexec_fn", "start_new_session", "pass_fds", "shell", "executable",
                   "process_group", "user", "group", "extra_groups", "umask"}
    if unsupported & {k for k, v in kwargs.items() if v}:
        return False
    used = {name for name, value in kwargs.items() if value is not None}
    if not used <= {"input", "capture_output", "stdin", "stdout", "stderr", "env", "cwd",
                    "timeout", "text", "check", "encoding", "errors"}:
        return False
    # A terminal changes how the interpreter sets up its streams at start (buffering)
    return not any(_a_terminal(kwargs.get(name), fd)
                   for fd, name in enumerate(("stdin", "stdout", "stderr")))


def _a_terminal(spec: Any, fd: int) -> bool:
    if spec in (subprocess.PIPE, subprocess.DEVNULL, subprocess.STDOUT):
        return False
    try:
        return os.isatty(fd if spec is None else spec if isinstance(spec, int)
                         else spec.fileno())
    except (OSError, ValueError, AttributeError):
        return True  # (not something a fork can take: start it fresh)


def run(command: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run(command, **kwargs)``; ``python -m desktop`` commands are forked
    from the warm server when nothing differs that a fork cannot carry (see above)."""
    env = dict(os.environ if kwargs.get("env") is None else kwargs["env"])
    server = _the_server() if _forkable(command, kwargs) else None
    if server is None or _start_up_settings(env) != _start_up_settings(server.env):
        started["fresh"] += 1
        return subprocess.run(command, **kwargs)  # noqa: PLW1510 (check is in kwargs)
    started["forked"] += 1
    kwargs.pop("env", None)
    return _run_forked(server, command, env, **kwargs)


def _run_forked(server: _Server, command: Sequence[str], env: _Env, *,
                input: bytes | str | None = None, capture_output: bool = False,
                stdin: Any = None, stdout: Any = None, stderr: Any = None,
                cwd: str | os.PathLike[str] | None = None, timeout: float | None = None,
                text: bool = False, check: bool = False, encoding: str | None = None,
                errors: str | None = None, **_: Any) -> subprocess.CompletedProcess[Any]:
    if capture_output:
        stdout = stderr = subprocess.PIPE
    text_mode = text or encoding is not None or errors is not None
    if input is not None:
        stdin = subprocess.PIPE
        if text_mode:
            assert isinstance(input, str)
            input = input.encode(encoding or _locale_encoding(), errors or "strict")
    opened: list[int] = []  # ours, closed once the child has them
    ours: dict[str, int] = {}

    def child_end(spec: Any, fd: int, name: str, reading: bool) -> int:
        if spec is None:
            return fd
        if spec == subprocess.DEVNULL:
            end = os.open(os.devnull, os.O_RDONLY if reading else os.O_WRONLY)
        elif spec == subprocess.PIPE:
            read, write = os.pipe()
            end, ours[name] = (read, write) if reading else (write, read)
        elif spec == subprocess.STDOUT:
            return -1
        elif isinstance(spec, int):
            return spec
        else:
            return int(spec.fileno())
        opened.append(end)
        return end

    in_fd = child_end(stdin, 0, "stdin", True)
    out_fd = child_end(stdout, 1, "stdout", False)
    err_fd = child_end(stderr, 2, "stderr", False)
    if err_fd == -1:
        err_fd = out_fd
    where = os.fspath(cwd) if cwd is not None else os.getcwd()
    try:
        conn, pid = server.start(list(command[3:]), env, os.path.abspath(where),
                                 (in_fd, out_fd, err_fd))
    finally:
        for fd in opened:
            os.close(fd)
    results: dict[str, bytes] = {}
    threads = [threading.Thread(target=_drain, args=(ours[name], name, results), daemon=True)
               for name in ("stdout", "stderr") if name in ours]
    if "stdin" in ours:
        threads.append(threading.Thread(target=_feed, args=(ours["stdin"], input or b""),
                                        daemon=True))
    for thread in threads:
        thread.start()
    try:
        line = _status_line(conn, timeout)
    except TimeoutError:
        os.kill(pid, signal.SIGKILL)
        _status_line(conn, None)
        for thread in threads:
            thread.join()
        conn.close()
        raise subprocess.TimeoutExpired(list(command), timeout or 0,
                                        results.get("stdout"), results.get("stderr")) from None
    conn.close()
    for thread in threads:
        thread.join()
    status = int(json.loads(line)["status"])
    code = os.waitstatus_to_exitcode(status)
    out: Any = results.get("stdout")
    err: Any = results.get("stderr")
    if text_mode:
        out, err = (None if data is None else _decode(data, encoding, errors)
                    for data in (out, err))
    done = subprocess.CompletedProcess(list(command), code, out, err)
    if check:
        done.check_returncode()
    return done


def _status_line(conn: socket.socket, timeout: float | None) -> bytes:
    """The server's second line (the child's wait status), within ``timeout`` seconds."""
    deadline = None if timeout is None else time.monotonic() + timeout
    data = b""
    while not data.endswith(b"\n"):
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            raise TimeoutError
        conn.settimeout(left)
        chunk = conn.recv(4096)
        if not chunk:
            raise RuntimeError("the CLI fork server went away")
        data += chunk
    return data


def _drain(fd: int, name: str, results: dict[str, bytes]) -> None:
    chunks = []
    with open(fd, "rb", closefd=True) as stream:
        while chunk := stream.read1(65536):
            chunks.append(chunk)
    results[name] = b"".join(chunks)


def _feed(fd: int, data: bytes) -> None:
    with open(fd, "wb", closefd=True) as stream, contextlib.suppress(BrokenPipeError):
        stream.write(data)


def _locale_encoding() -> str:
    import locale

    return locale.getpreferredencoding(False)


def _decode(data: bytes, encoding: str | None, errors: str | None) -> str:
    """As ``subprocess`` decodes in text mode (universal newlines)."""
    text = data.decode(encoding or _locale_encoding(), errors or "strict")
    return text.replace("\r\n", "\n").replace("\r", "\n")
