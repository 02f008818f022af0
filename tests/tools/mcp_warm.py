"""A warm copy of the test MCP servers: each server script starts as a process of its own,
but without importing the MCP SDK again (about a CPU-second per start, and the suite
starts them a few hundred times).

A test process starts two copies at its first test (:func:`start_copies`, from
tests/conftest.py): each imports the SDK and what the servers use, then waits on an
abstract Unix socket named after this folder and the interpreter's start-up state (one
set up as the app starts servers, one as a test does). Every server script here imports
this module first; run as a program while a matching copy is up, it hands its stdin,
stdout and stderr, arguments, environment, working directory and ``sys.path`` to the
copy, which forks; the fork runs the script as ``python script.py`` would (``__main__``,
exit status, atexit, threads joined). The script's own process then waits for the fork
and ends as it ends: the same exit status, or killed by the same signal. A signal sent
to it (SIGTERM, SIGINT, ...) is passed on to the fork; if it is killed outright, the
copy kills the fork. So the app starts a process, talks to it over its pipes, stops or
kills it and sees it end, as before; only the interpreter start-up and the imports are
shared. A server's ``pid`` tool answers the fork's pid, the process that serves.

With no copy up, or when something a fork cannot reproduce differs (interpreter flags,
warnings options, how the standard streams are set up, resource limits, the umask), the
script runs on in its own interpreter. ``ASSISTA_TEST_FRESH_MCP=1`` in the test process
starts no copy; nor does any system but Linux (the scripts run as they are there).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: What the server scripts import at module level, imported once by the copy.
WARM = ["anyio", "pydantic", "httpx", "jwt", "uvicorn", "starlette.applications",
        "mcp", "mcp.types", "mcp.server.mcpserver", "mcp.server.mcpserver.exceptions",
        "mcp.server.mcpserver.utilities.types", "mcp.server.auth.provider",
        "mcp.server.auth.settings", "mcp.shared.auth"]
_HEADER = struct.Struct("!I")
_COPIES = 4  # copies that may be up at once for one folder (one per test process)
_FORWARDED = [getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT",
                                                  "SIGUSR1", "SIGUSR2") if hasattr(signal, name)]
#: Where copies run: abstract Unix sockets, pidfds and fd passing are Linux's.
SUPPORTED = sys.platform == "linux"
#: True in a fork of the copy: the script runs here, it is not handed on again.
IN_FORK = False


def _fingerprint() -> str:
    """What a fork inherits from the copy instead of setting up itself: it must match."""
    streams = [(s.encoding, s.errors, s.line_buffering, s.write_through)
               if s is not None else None for s in (sys.stdin, sys.stdout, sys.stderr)]
    import resource

    limits = [resource.getrlimit(getattr(resource, name)) for name in sorted(dir(resource))
              if name.startswith("RLIMIT_")]
    mask = os.umask(0)
    os.umask(mask)
    state = (str(HERE), sys.executable, tuple(sys.flags), sys.warnoptions,
             sorted(sys._xoptions.items()), streams, limits, mask)
    return hashlib.sha256(repr(state).encode()).hexdigest()[:24]


def _names() -> list[str]:
    key = _fingerprint()
    return [f"\0assista-mcp-warm-{key}-{n}" for n in range(_COPIES)]


# --- the script's side ------------------------------------------------------------------

def _hand_over() -> None:
    """Run this server in a fork of the warm copy, if one is up; else return."""
    main = sys.modules.get("__main__")
    script = getattr(main, "__file__", None)
    if not SUPPORTED or IN_FORK or script is None or Path(script).resolve().parent != HERE \
            or Path(script).resolve() == Path(__file__).resolve():
        return
    conn = None
    for name in _names():
        candidate = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            candidate.connect(name)
        except OSError:
            candidate.close()
            continue
        conn = candidate
        break
    if conn is None:
        return
    body = json.dumps({"script": str(Path(script).resolve()), "argv": sys.argv,
                       "env": dict(os.environ), "cwd": os.getcwd(), "path": sys.path,
                       "dont_write_bytecode": sys.dont_write_bytecode}).encode()
    socket.send_fds(conn, [_HEADER.pack(len(body))], [0, 1, 2])
    conn.sendall(body)
    pid = int(json.loads(_line(conn))["pid"])
    # The fork holds the pipes now; ours go, so the other end sees them close with it.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    for number in _FORWARDED:
        signal.signal(number, lambda sig, _frame: _signal_fork(pid, sig))
    status = int(json.loads(_line(conn))["status"])
    if os.WIFSIGNALED(status):  # end as the fork ended: by the same signal
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _signal_fork(pid: int, number: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, number)


def _line(conn: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(4096)
        if not chunk:
            os._exit(70)  # the copy went away (the test process ended)
        data += chunk
    return data


# --- the warm copy ----------------------------------------------------------------------

def start_copies() -> list[subprocess.Popen[bytes]]:
    """Start the copies for this test process (each ends when its stdin closes, and
    says ``ready`` on stdout once it listens): one
    set up as the servers the app starts are (the few variables the MCP SDK passes on:
    no ``PYTHON*``, no locale), one as those a test starts with its own environment."""
    if not SUPPORTED:
        return []
    app = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "LC_")) and k not in ("LANG", "LANGUAGE")}
    return [subprocess.Popen([sys.executable, str(HERE / "mcp_warm.py")], env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            for env in (app, dict(os.environ))]


#: The copies this test process started at its first test (tests/conftest.py).
STARTED: list[subprocess.Popen[bytes]] = []
_said: dict[int, bytes] = {}


def wait_listening(copy: subprocess.Popen[bytes]) -> bytes:
    """What ``copy`` says once it is up: ``ready`` (it listens) or ``busy`` (every name
    was taken, by other copies that listen)."""
    if copy.pid not in _said:
        assert copy.stdout is not None
        _said[copy.pid] = copy.stdout.readline()
    return _said[copy.pid]


def stop_copy(copy: subprocess.Popen[bytes]) -> None:
    assert copy.stdin is not None and copy.stdout is not None
    copy.stdin.close()
    copy.stdout.close()
    try:
        copy.wait(10)
    except subprocess.TimeoutExpired:
        copy.kill()
        copy.wait()


def serve() -> None:
    """Import the servers' libraries, then fork a server for every script that asks,
    until stdin closes (the test process ended)."""
    import gc
    import importlib

    for module in WARM:
        importlib.import_module(module)
    # (out of the collector's sight: a fork's collections do not walk the imports'
    # objects, writing to every page it shares with this copy)
    gc.collect()
    gc.freeze()
    if threading.active_count() != 1:  # a fork of a threaded process is unsafe
        raise SystemExit("mcp_warm: importing the MCP SDK started a thread")
    listener = None
    for name in _names():
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(name)
            break
        except OSError:  # (another test process's copy has this one)
            listener.close()
            listener = None
    if listener is None:
        sys.stdout.write("busy\n")  # (every name taken: the scripts find another copy)
        sys.stdout.flush()
        return
    listener.listen(64)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, ("accept",))
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, ("stdin",))
    forks: dict[int, tuple[socket.socket, int]] = {}  # pid -> (its script's socket, pidfd)
    try:
        while True:
            for key, _ in selector.select():
                kind = key.data[0]
                if kind == "stdin":
                    if not os.read(sys.stdin.fileno(), 4096):
                        return
                elif kind == "accept":
                    _start(listener, selector, forks)
                elif kind == "exit":
                    _ended(key.data[1], selector, forks)
                else:  # "script": its process ended without waiting for the fork
                    selector.unregister(key.fileobj)
                    _signal_fork(key.data[1], signal.SIGKILL)
    finally:
        for pid in forks:
            _signal_fork(pid, signal.SIGKILL)


def _start(listener: socket.socket, selector: selectors.BaseSelector,
           forks: dict[int, tuple[socket.socket, int]]) -> None:
    conn, _ = listener.accept()
    conn.setblocking(True)
    head, fds, _flags, _addr = socket.recv_fds(conn, _HEADER.size, 3)
    if len(head) < _HEADER.size or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        conn.close()
        return
    (size,) = _HEADER.unpack(head)
    body = b""
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            break
        body += chunk
    pid = os.fork()
    if pid == 0:
        _child(json.loads(body), list(fds))  # never returns
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(pid)
    forks[pid] = (conn, pidfd)
    with contextlib.suppress(OSError):
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    selector.register(pidfd, selectors.EVENT_READ, ("exit", pid))
    selector.register(conn, selectors.EVENT_READ, ("script", pid))


def _ended(pid: int, selector: selectors.BaseSelector,
           forks: dict[int, tuple[socket.socket, int]]) -> None:
    conn, pidfd = forks.pop(pid)
    selector.unregister(pidfd)
    os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    with contextlib.suppress(KeyError, ValueError):
        selector.unregister(conn)
    with contextlib.suppress(OSError):
        conn.sendall(json.dumps({"status": status}).encode() + b"\n")
    conn.close()


def _child(request: dict[str, Any], fds: list[int]) -> None:
    global IN_FORK
    IN_FORK = True
    code = 70
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        os.environ.clear()
        os.environ.update(request["env"])
        import time

        time.tzset()
        os.chdir(request["cwd"])
        sys.path[:] = request["path"]
        sys.dont_write_bytecode = request["dont_write_bytecode"]
        sys.argv = list(request["argv"])
        code = _run_script(request["script"])
    finally:
        os._exit(code)


def _run_script(script: str) -> int:
    """``python script`` from here on, including how the interpreter ends."""
    import runpy

    return run_as_interpreter(lambda: runpy.run_path(script, run_name="__main__"))


def run_as_interpreter(run: Callable[[], object]) -> int:
    """``run`` the program, then end as the interpreter would after it: the exit status
    of SystemExit (its message printed), a traceback and 1 for an exception, threads
    joined, atexit functions run, streams flushed (120 when that fails), killed by
    SIGINT itself after KeyboardInterrupt. Returns the status (also used by
    tests/support/forked_cli.py, for ``python -m desktop``)."""
    import atexit

    code = 0
    interrupted = False
    try:
        run()
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        sys.excepthook(*sys.exc_info())  # type: ignore[arg-type]
        interrupted = True
    except BaseException:
        sys.excepthook(*sys.exc_info())  # type: ignore[arg-type]
        code = 1
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = 120
    if interrupted:  # as the interpreter does: end by the signal itself
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return code & 0xFF


if __name__ == "__main__":
    import mcp_warm  # (this file again, as the module the scripts import)

    mcp_warm.serve()
else:
    _hand_over()
