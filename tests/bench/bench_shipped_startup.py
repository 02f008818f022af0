"""Start-up measured as the user runs it: the shipped ``assista`` against a bare window.

The app: the venv's ``assista`` console script (this tree first on PYTHONPATH), a fresh
HOME whose data folder holds ``--chats`` saved chats (1,000 and 10,000 by default; 3
questions and 3 answers each), the provider from OPENAI_API_KEY / OPENAI_BASE_URL
pointing at a loopback model server in this process, the real window on a private Xvfb
with openbox, no ``nice``.

The baseline: a bare PySide6 window (a script that imports PySide6 and shows a 1280x820
QMainWindow), started with the same Python on the same screen. A second one, the floor
of the fixed packages (tests/bench/startup_floor.py): the same window that, with none of
the app, loads what answering needs (pydantic with a model validated, sqlite3, asyncio
on qasync, httpx) and sends a question typed at once; and the same floor without pydantic
(its settings in a plain class), which shows what pydantic alone costs. Runs alternate
bare window, the two floors and the app; the load (1-minute average) is printed beside
each.

* **shown**: from spawning the process until the window manager lists its window
  (``xprop -spy`` on the root window's ``_NET_CLIENT_LIST``: the same event for both).
* **question answered** (the app only; "loaded" in the issue): at the moment its window
  is shown, ``xdotool`` types a question and presses Enter; the figure is when the
  loopback server receives that question's request (a question typed at that moment is
  answered: it is sent as soon as the chat service can run a turn, see
  desktop/ui/window/early_question.py).
* **window built**: the app's trace says when the window's whole content is built (chat
  view, every pane, the chats listed), which may be after the question was sent.
* **longest stall**: the app's own trace (``ASSISTA_STARTUP_TRACE``, see
  desktop/ui/window/startup_trace.py): a 1 ms timer beating from the first frame until
  loaded (and until half a second later), the longest gap named after the loading step
  that held the event loop.

Compiled bytecode is kept as a user's install has it: one uncounted start of each first.

    .venv/bin/python tests/bench/bench_shipped_startup.py [--chats 1000,10000] [--runs 3]
        [--profile OUT]   (py-spy, one start per chat count, raw stacks to OUT.N,
                           the top entries printed)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.bench_shipped_stream import assista, start_screen, xdotool  # noqa: E402

TARGETS = {1000: 3.0, 10000: 4.0}  # loaded / bare window shown
STALL_TARGET_MS = 50.0
SEED_CACHE = Path(tempfile.gettempdir()) / "assista-bench-startup-seed"
FLOOR = Path(__file__).with_name("startup_floor.py")

#: The same-run baseline the issue names, in a process of its own: a bare PySide6 window.
#: (The app measured is never built here: it is the shipped ``assista``, :func:`assista`.)
BARE = """
import sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication([])
window = QMainWindow()
window.resize(1280, 820)
window.show()
def cpu():  # processor time until shown (the app's trace writes its own until loaded)
    with open(sys.argv[1], "w") as out:
        out.write(f"{time.process_time() * 1000:.1f}")
QTimer.singleShot(0, cpu)
app.exec()
"""


# -- the loopback model server -------------------------------------------------------------

class ModelServer:
    """OpenAI's wire API on 127.0.0.1: the model list, and a short streamed answer to
    every question; the time each question arrives is put on ``questions``."""

    def __init__(self) -> None:
        self.questions: queue.Queue[float] = queue.Queue()
        questions = self.questions

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: object) -> None:
                pass

            def do_GET(self) -> None:
                self._send("application/json", json.dumps({"object": "list", "data": [
                    {"id": "gpt-4o-mini", "object": "model", "owned_by": "bench"}]}).encode())

            def do_POST(self) -> None:
                arrived = time.time()
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not (request.get("max_tokens") or request.get("max_completion_tokens")):
                    questions.put(arrived)  # (not the chat's title, asked afterwards)
                chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1,
                         "model": "gpt-4o-mini", "choices": [
                             {"index": 0, "delta": {"content": "Hello."},
                              "finish_reason": "stop"}]}
                self._send("text/event-stream",
                           b"data: " + json.dumps(chunk).encode() + b"\n\ndata: [DONE]\n\n")

            def _send(self, kind: str, body: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        class Quiet(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, *_args: object) -> None:
                pass

        self.server = Quiet(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def drain(self) -> None:
        while not self.questions.empty():
            self.questions.get_nowait()


# -- the data folder ------------------------------------------------------------------------

def seeded(chats: int) -> Path:
    """A data folder with ``chats`` chats of 6 messages, made once per schema version
    and kept in the temporary folder (10,000 chats take minutes to save)."""
    schema = hashlib.sha256((ROOT / "desktop/storage/migrations.py").read_bytes()).hexdigest()
    folder = SEED_CACHE / f"{chats}-{schema[:12]}"
    if (folder / "done").exists():
        return folder / "data"
    shutil.rmtree(folder, ignore_errors=True)
    from desktop.app import AppContext
    from desktop.core.messages import Message, TextPart

    print(f"saving {chats:,} chats (once) into {folder}", flush=True)
    ctx = AppContext.open(folder / "data", environ={}, log_to_stderr=False)
    try:
        for n in range(chats):
            session = ctx.sessions.create_session(f"Chat number {n}")
            for turn in range(3):
                ctx.sessions.save_message(session.id, Message(
                    role="user", parts=[TextPart(text=f"Question {turn} " * 20)]))
                ctx.sessions.save_message(session.id, Message(
                    role="assistant", parts=[TextPart(text=f"Answer {turn} with `code` " * 80)]))
    finally:
        ctx.close()
    (folder / "done").touch()
    return folder / "data"


# -- one start --------------------------------------------------------------------------------

class WindowSpy:
    """``xprop -spy`` on the root window: the time the window manager first lists a new
    client window, and the time it gives that window the keyboard focus."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(["xprop", "-root", "-spy", "_NET_CLIENT_LIST",
                                      "_NET_ACTIVE_WINDOW"], env=env,
                                     stdout=subprocess.PIPE, text=True)
        self.lists: queue.Queue[tuple[float, set[str]]] = queue.Queue()
        self.active: queue.Queue[tuple[float, set[str]]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.before = self.lists.get(timeout=10)[1]  # (xprop prints the list at once,
        self.active.get(timeout=10)  # and the focus: a window gone, its id used again)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            at = time.time()
            ids = set(line.split("#", 1)[1].replace(",", " ").split()) if "#" in line else set()
            (self.active if line.startswith("_NET_ACTIVE_WINDOW") else self.lists).put((at, ids))

    def new_window(self, timeout: float) -> tuple[float, str]:
        deadline = time.monotonic() + timeout
        while True:
            at, ids = self.lists.get(timeout=max(0.1, deadline - time.monotonic()))
            new = ids - self.before
            if new:
                return at, sorted(new)[0]

    def focused(self, window: str, timeout: float) -> float:
        """When ``window`` has the keyboard focus (what is typed goes to it)."""
        deadline = time.monotonic() + timeout
        while True:
            at, ids = self.active.get(timeout=max(0.1, deadline - time.monotonic()))
            if window in ids:
                return at

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_bare(env: dict[str, str], script: Path) -> dict[str, float]:
    spy = WindowSpy(env)
    try:
        cpu = script.with_suffix(".cpu")
        cpu.unlink(missing_ok=True)
        started = time.time()
        proc = subprocess.Popen([sys.executable, str(script), str(cpu)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            shown, _window = spy.new_window(60)
            deadline = time.monotonic() + 10
            while not cpu.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
        finally:
            stop(proc)
    finally:
        spy.close()
    return {"shown": shown - started,
            "cpu": float(cpu.read_text() or "nan") / 1000 if cpu.exists() else float("nan")}


def type_question(env: dict[str, str], spy: WindowSpy, window: str) -> float:
    """Once ``window`` has the keyboard focus, type a question and press Enter (as a
    user who types the moment the window shows); when it had the focus."""
    focused = spy.focused(window, 30)
    xdotool("type", "--delay", "5", "Hello there", env=env)
    xdotool("key", "Return", env=env)
    return focused


def run_floor(env: dict[str, str], server: ModelServer,
              without_pydantic: bool = False) -> dict[str, float]:
    """The fixed packages' floor: shown, and the question typed at once received."""
    floor_env = dict(env, OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=server.url)
    server.drain()
    spy = WindowSpy(floor_env)
    try:
        started = time.time()
        proc = subprocess.Popen([sys.executable, str(FLOOR),
                                 *(["--without-pydantic"] if without_pydantic else [])],
                                env=floor_env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            shown, window = spy.new_window(60)
            type_question(floor_env, spy, window)
            answered = server.questions.get(timeout=60)
        finally:
            stop(proc)
    finally:
        spy.close()
    return {"shown": shown - started, "loaded": answered - started}


def run_app(env: dict[str, str], data: Path, server: ModelServer,
            profile: str | None = None, app: str = "") -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="assista-bench-home-") as home:
        shutil.copytree(data, Path(home) / ".local/share/Assista")
        trace = Path(home) / "trace.txt"
        app_env = dict(env, HOME=home, OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=server.url,
                       ASSISTA_STARTUP_TRACE=str(trace))
        for key in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "ANTHROPIC_API_KEY",
                    "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENROUTER_API_KEY"):
            app_env.pop(key, None)
        command = [app or assista()]
        if profile:  # py-spy starts the app (its own start is not counted in the figure)
            command = [str(Path(sys.executable).with_name("py-spy")), "record", "--rate",
                       "500", "--format", "raw", "--threads", "-o", profile, "--",
                       sys.executable, assista()]
        server.drain()
        spy = WindowSpy(app_env)
        log = open(Path(home) / "app.log", "w")  # noqa: SIM115
        try:
            started = time.time()
            proc = subprocess.Popen(command, env=app_env, stdout=log, stderr=log, cwd=home)
            try:
                try:
                    shown, window = spy.new_window(120)
                except queue.Empty:
                    raise RuntimeError("the app's window did not show:\n" + (
                        Path(home) / "app.log").read_text()[-3000:]) from None
                focused = type_question(app_env, spy, window)
                try:
                    answered = server.questions.get(timeout=120)
                except queue.Empty:
                    raise RuntimeError("the question typed at once was never sent:\n"
                                       + (Path(home) / "app.log").read_text()[-3000:]) from None
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline and "settled" not in (
                        trace.read_text() if trace.exists() else ""):
                    time.sleep(0.05)
            finally:
                if profile:
                    os.kill(proc.pid, 2)  # py-spy ends the app and writes its stacks
                    proc.wait(timeout=60)
                else:
                    stop(proc)
        finally:
            spy.close()
            log.close()
        text = trace.read_text()
        lines = {line.split()[0]: line.split() for line in text.splitlines()}
        gaps = sorted(((float(line.split()[1]), " ".join(line.split()[2:]))
                       for line in text.splitlines() if line.startswith("gap ")), reverse=True)
        return {"shown": shown - started, "loaded": answered - started,
                "focused": focused - started,
                "trace_shown": float(lines["shown"][1]) - started,
                "trace_loaded": float(lines["loaded"][1]) - started,
                "stall": float(lines["loaded"][3]) / 1000,
                "stall_at": " ".join(lines["loaded"][5:]),
                "settled_stall": float(lines["settled"][3]) / 1000 if "settled" in lines
                else float("nan"),
                "settled_at": " ".join(lines["settled"][5:]) if "settled" in lines else "-",
                "cpu": float(lines["cpu"][1]) / 1000 if "cpu" in lines else float("nan"),
                "cpu_main": float(lines["cpu"][3]) / 1000 if "cpu" in lines else float("nan"),
                "window": window,
                "gaps": ", ".join(f"{ms_:.0f} {at}" for ms_, at in gaps[:4]) or "none"}


# -- profiles ----------------------------------------------------------------------------------

def top_entries(path: str, count: int = 15) -> str:
    """The main thread's top functions in py-spy's raw stacks: by own time and, for
    the app's modules, including what they call."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in Path(path).read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        frames = stack.split(";")
        if frames and frames[0].startswith("thread") and "MainThread" not in frames[0]:
            continue  # the main thread only (the window's)
        samples = int(n)
        total += samples
        names = [f.rsplit(":", 1)[0] + ")" if " (" in f else f for f in frames[1:]]
        if names:
            own[names[-1]] += samples
        for name in set(names):
            if "desktop/" in name:
                inclusive[name] += samples
    out = [f"    main thread: {total} samples; by own time:"]
    out += [f"      {n / total:6.1%}  {name}" for name, n in own.most_common(count)]
    out.append("    the app's functions, including what they call:")
    out += [f"      {n / total:6.1%}  {name}" for name, n in inclusive.most_common(count)]
    return "\n".join(out)


# -- the figures --------------------------------------------------------------------------------

def ms(values: list[float]) -> str:
    return ", ".join(f"{v * 1000:.0f}" for v in values)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def bench(env: dict[str, str], chats: int, runs: int, server: ModelServer,
          script: Path, *, app_path: str = "") -> None:
    data = seeded(chats)
    print(f"[{chats:,} chats]", flush=True)
    run_bare(env, script)  # not counted: bytecode, page cache
    run_floor(env, server)
    run_floor(env, server, without_pydantic=True)
    run_app(env, data, server, app=app_path)
    bare: list[dict[str, float]] = []
    floor: list[dict[str, float]] = []
    plain_floor: list[dict[str, float]] = []
    app: list[dict[str, Any]] = []
    for n in range(runs):
        load = os.getloadavg()[0]
        b = run_bare(env, script)
        bare.append(b)
        print(f"  run {n + 1} bare window  shown {b['shown'] * 1000:5.0f} ms (CPU until shown "
              f"{b['cpu'] * 1000:.0f} ms)                  load {load:.2f}", flush=True)
        for label, plain, into in (("floor       ", False, floor),
                                   ("floor without pydantic ", True, plain_floor)):
            load = os.getloadavg()[0]
            f = run_floor(env, server, without_pydantic=plain)
            into.append(f)
            print(f"  run {n + 1} {label} shown {f['shown'] * 1000:5.0f} ms, question sent "
                  f"{f['loaded'] * 1000:5.0f} ms   load {load:.2f}", flush=True)
        load = os.getloadavg()[0]
        a = run_app(env, data, server, app=app_path)
        app.append(a)
        print(f"  run {n + 1} assista      shown {a['shown'] * 1000:5.0f} ms, question sent "
              f"{a['loaded'] * 1000:5.0f} ms (focused {a['focused'] * 1000:.0f}; trace: "
              f"first frame {a['trace_shown'] * 1000:.0f}"
              f", loaded {a['trace_loaded'] * 1000:.0f}); longest stall "
              f"{a['stall'] * 1000:.0f} ms at {a['stall_at']} (to +0.5 s: "
              f"{a['settled_stall'] * 1000:.0f} ms at {a['settled_at']}); CPU until loaded "
              f"{a['cpu'] * 1000:.0f} ms (main thread {a['cpu_main'] * 1000:.0f})   "
              f"load {load:.2f}", flush=True)
        print(f"      gaps over 25 ms from shown to +0.5 s: {a['gaps']}", flush=True)
    base = statistics.median(r["shown"] for r in bare)
    shown = statistics.median(r["shown"] for r in app)
    loaded = statistics.median(r["loaded"] for r in app)
    stall = max(r["stall"] for r in app)
    target = TARGETS.get(chats, 4.0)
    print(f"  bare window shown   median {base * 1000:.0f} ms ({ms([r['shown'] for r in bare])})")
    print(f"  assista shown       median {shown * 1000:.0f} ms = {shown / base:.2f}x "
          f"({ms([r['shown'] for r in app])})")
    print(f"  question answered   median {loaded * 1000:.0f} ms = {loaded / base:.2f}x the bare "
          f"window (target <= {target}x)   {verdict(loaded / base <= target)}   "
          f"({ms([r['loaded'] for r in app])})")
    floor_loaded = statistics.median(r["loaded"] for r in floor)
    print(f"  the fixed packages' floor: question answered median {floor_loaded * 1000:.0f} ms "
          f"= {floor_loaded / base:.2f}x the bare window; the app = {loaded / floor_loaded:.2f}x "
          f"the floor ({ms([r['loaded'] for r in floor])})")
    plain = statistics.median(r["loaded"] for r in plain_floor)
    print(f"  the same floor without pydantic: question answered median {plain * 1000:.0f} ms = "
          f"{plain / base:.2f}x the bare window (pydantic's import and first model: "
          f"{(floor_loaded - plain) * 1000:.0f} ms = {(floor_loaded - plain) / base:.2f}x; "
          f"{ms([r['loaded'] for r in plain_floor])})")
    built = statistics.median(r["trace_loaded"] for r in app)
    print(f"  window built        median {built * 1000:.0f} ms = {built / base:.2f}x the bare "
          f"window (its whole content, every chat listed; the question may be answered "
          f"before: ({ms([r['trace_loaded'] for r in app])})")
    # Processor time hardly moves with the machine's load (the times above do): the app's
    # until loaded against the bare window's until shown, an idle machine's ratio
    base_cpu = statistics.median(r["cpu"] for r in bare)
    cpu = statistics.median(r["cpu"] for r in app)
    main_cpu = statistics.median(r["cpu_main"] for r in app)
    print(f"  CPU until loaded    median {cpu * 1000:.0f} ms (main thread {main_cpu * 1000:.0f} "
          f"ms) = {cpu / base_cpu:.2f}x the bare window's until shown ({base_cpu * 1000:.0f} "
          f"ms; {ms([r['cpu'] for r in bare])} / {ms([r['cpu'] for r in app])})")
    print(f"  longest stall shown -> loaded: {stall * 1000:.0f} ms at most (target < "
          f"{STALL_TARGET_MS:.0f} ms)   {verdict(stall * 1000 < STALL_TARGET_MS)}   "
          f"({ms([r['stall'] for r in app])})", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chats", default="1000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", metavar="OUT")
    parser.add_argument("--app", default="", help="another assista to start (e.g. the "
                        "bundle's dist/assista/assista) instead of the venv's")
    args = parser.parse_args()
    env, screen = start_screen()
    env = dict(env, PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    server = ModelServer()
    print(f"app: {args.app or assista()} (this tree on PYTHONPATH), fresh HOME, provider from the "
          f"environment at {server.url}; screen {env['DISPLAY']}"
          f"{' with openbox' if len(screen) > 1 else ''}; {os.cpu_count()} cores")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            script = Path(tmp) / "bare_window.py"
            script.write_text(BARE)
            for chats in (int(c) for c in args.chats.split(",")):
                if args.profile:
                    data = seeded(chats)
                    run_app(env, data, server)  # (bytecode)
                    out = f"{args.profile}.{chats}"
                    r = run_app(env, data, server, profile=out)
                    print(f"[{chats:,} chats] under py-spy: shown {r['shown'] * 1000:.0f} ms, "
                          f"loaded {r['loaded'] * 1000:.0f} ms, load "
                          f"{os.getloadavg()[0]:.2f}; stacks in {out}")
                    print(top_entries(out), flush=True)
                    continue
                bench(env, chats, args.runs, server, script, app_path=args.app)
    finally:
        server.server.shutdown()
        for proc in reversed(screen):
            proc.terminate()
            proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
