"""Streaming measured as the user runs it: the shipped ``assista`` against the floor.

The paced SSE server runs in its own process and sends what OpenAI sends: one
``chat.completion.chunk`` event per write, ~16 characters (4 tokens) each, at the
given token rate. It tells this script when each long stream starts and ends.

The floor (tests/bench/floor_client.py): a text-only PySide6 client, a worker thread
reading the stream with a synchronous httpx client, the Qt thread appending to a
QPlainTextEdit at most 15 times a second.

The app: the venv's ``assista`` console script, as a user starts it: a fresh HOME,
the provider from OPENAI_API_KEY / OPENAI_BASE_URL, the real window on a private
Xvfb (with openbox when installed), no ``nice``. The question is typed with xdotool;
the run ends when the database holds the finished answer, and ``assista export``
must show all of it.

Each figure is the client's CPU (utime+stime from /proc/<pid>/stat, children
included) over the stream's wall time, run ``--runs`` times alternating floor and app,
with the machine's load (1-minute load average, and how many cores everything on the
machine kept busy during the stream) printed beside it.

    .venv/bin/python tests/bench/bench_shipped_stream.py [--rates 250,1000] [--runs 3]
        [--chars 20000] [--qasync-floor]

``--costs`` runs the app once per rate with its steps timed inside it and prints CPU
per event by step (decode, parse, events, save queue, bridge, the view's parse and
apply, the column's relayout, paint, and what is left on each thread: reading on the
stream thread, Qt and the event loop on the main one): tests/bench/stream_costs.py.
Run against another tree with PYTHONPATH=that tree (the app imports ``desktop`` from
the path first; this script's tree is only where ``tests`` comes from).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

TARGET_RATIO = 1.3
LAG_TARGET_S = 0.5
CHARS_PER_EVENT = 16  # 4 tokens of ~4 characters, as OpenAI batches them
TICKS = os.sysconf("SC_CLK_TCK")


# -- the paced server (its own process) ------------------------------------------------

def event(cid: str, delta: dict[str, Any], finish: str | None = None) -> bytes:
    chunk = {"id": cid, "object": "chat.completion.chunk", "created": 1735689600,
             "model": "gpt-4o-mini-2024-07-18", "system_fingerprint": "fp_b376dfbbd5",
             "choices": [{"index": 0, "delta": delta, "logprobs": None,
                          "finish_reason": finish}]}
    return b"data: " + json.dumps(chunk, separators=(",", ":")).encode() + b"\n\n"


def serve(text: str, rate: float) -> None:
    """Serve until stdin closes; print ``port N``, then ``start T`` / ``end T``
    (time.monotonic, shared by every process) around each long stream."""
    pieces = [text[i:i + CHARS_PER_EVENT] for i in range(0, len(text), CHARS_PER_EVENT)]
    per_second = rate / (CHARS_PER_EVENT / 4)
    out_lock = threading.Lock()

    def say(line: str) -> None:
        with out_lock:
            print(line, flush=True)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args: object) -> None:
            pass

        def do_GET(self) -> None:  # the model list
            body = json.dumps({"object": "list", "data": [
                {"id": "gpt-4o-mini", "object": "model", "owned_by": "bench"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            limit = request.get("max_tokens") or request.get("max_completion_tokens")
            title = bool(limit) and int(limit) < 200  # the chat's title, after the answer
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            cid = "chatcmpl-BenchBenchBenchBenchBench01"
            self._chunk(event(cid, {"role": "assistant", "content": "", "refusal": None}))
            if title:
                self._chunk(event(cid, {"content": "Bench title"}))
            else:
                start = time.monotonic()
                say(f"start {start}")
                for i, piece in enumerate(pieces):
                    self._chunk(event(cid, {"content": piece}))
                    wait = start + (i + 1) / per_second - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
            self._chunk(event(cid, {}, "stop") + b"data: [DONE]\n\n")
            self._chunk(b"")
            if not title:
                say(f"end {time.monotonic()}")

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    class Quiet(ThreadingHTTPServer):
        def handle_error(self, *_args: object) -> None:
            pass  # a client that quits with a connection open

    server = Quiet(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    say(f"port {server.server_address[1]}")
    sys.stdin.read()  # until the benchmark closes it
    server.shutdown()


class Server:
    """The paced server process and the start/end times it reports."""

    def __init__(self, chars: int, rate: float) -> None:
        self.chars = chars
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(rate), "--chars", str(chars)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline().split()[1])
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.marks: queue.Queue[tuple[str, float]] = queue.Queue()
        self.watched = 0
        self.costs_path: str | None = None  # the app's steps (tests/bench/stream_costs.py)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            kind, at = line.split()
            # the client's CPU at this very moment, before anything else runs
            self.marks.put((kind, float(at)))
            if self.watched:
                threads = thread_cpu(self.watched)
                if self.costs_path:
                    from tests.bench.stream_costs import read

                    threads.update({f"step {k}": v for k, v in read(self.costs_path).items()})
                self.cpu_marks.put((kind, cpu_seconds(self.watched), machine_busy(), threads))

    def watch(self, pid: int) -> None:
        self.cpu_marks: queue.Queue[tuple[str, float, float, dict[str, float]]] = \
            queue.Queue()
        self.thread_marks: list[dict[str, float]] = []
        self.watched = pid

    def stream(self, timeout: float) -> tuple[float, float, float, float]:
        """Wait for one stream: (wall seconds, client CPU seconds, machine busy cores,
        monotonic end)."""
        kind, start = self.marks.get(timeout=timeout)
        _k, cpu0, busy0, threads0 = self.cpu_marks.get(timeout=5)
        assert kind == "start", kind
        kind, end = self.marks.get(timeout=timeout)
        _k, cpu1, busy1, threads1 = self.cpu_marks.get(timeout=5)
        self.thread_marks = [threads0, threads1]
        assert kind == "end", kind
        wall = end - start
        return wall, cpu1 - cpu0, (busy1 - busy0) / wall, end

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def events_of(server: Server) -> float:
    return float(-(-server.chars // CHARS_PER_EVENT))


def cpu_seconds(pid: int) -> float:
    """utime + stime + cutime + cstime of ``pid`` (all its threads, waited-for children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / TICKS


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds of ``pid``'s main thread and of its other threads by name."""
    found: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue  # it ended
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        # Python does not name its threads for the OS: they all show the process's
        # name; the main thread (the Qt/event-loop thread) is the one whose id is the pid.
        name = "main thread" if task.name == str(pid) else f"other {name}"
        fields = stat.rsplit(")", 1)[1].split()
        found[name] = found.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / TICKS
    return found


#: What each of the app's threads does for a stream (the app names its threads for the
#: OS: desktop/core/thread_names.py).
THREAD_WORK = {
    "main thread": "main thread (orchestrator, bridge, view, Qt painting)",
    "other assista-stream": "reading+decoding+parsing (assista-stream)",
    "other assista-save_0": "save queue (assista-save)",
    "other assista-inspect": "request inspector (assista-inspector)",
}


def per_thread(server: Server, events: float) -> str:
    """µs of CPU per event in each thread that spent any during the stream."""
    if len(server.thread_marks) < 2:
        return ""
    start, end = server.thread_marks[-2], server.thread_marks[-1]
    spent = {name: end[name] - start.get(name, 0.0) for name in end
             if not name.startswith("step ")}
    return ", ".join(f"{THREAD_WORK.get(name, name)} {seconds / events * 1e6:.0f}"
                     for name, seconds in sorted(spent.items(), key=lambda kv: -kv[1])
                     if seconds > 0)


def per_step(server: Server, events: float) -> str:
    """µs of CPU per event in each step of the app (``--costs``), each step's own time;
    the main thread's time outside every step is Qt's and the event loop's."""
    if len(server.thread_marks) < 2:
        return ""
    start, end = server.thread_marks[-2], server.thread_marks[-1]
    steps = {name[5:]: end[name] - start.get(name, 0.0) for name in end
             if name.startswith("step ")}
    if not steps:
        return ""
    main = end.get("main thread", 0.0) - start.get("main thread", 0.0)
    on_main = sum(v for k, v in steps.items() if not k.startswith(("decode", "parse")))
    stream = sum(end[k] - start.get(k, 0.0) for k in end if k == "other assista-stream")
    on_stream = sum(v for k, v in steps.items() if k.startswith(("decode", "parse")))
    rows = [*steps.items(), ("stream thread: reading (httpx, asyncio), handover",
                             stream - on_stream),
            ("main thread: Qt (layout, paint, X11), event loop, qasync, rest",
             main - on_main)]
    return "\n".join(f"             {seconds / events * 1e6:7.0f} µs  {name}"
                     for name, seconds in rows)


def machine_busy() -> float:
    """Seconds of CPU the whole machine has spent busy since boot (all cores)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    return (sum(values[:8]) - idle) / TICKS


# -- the two clients ---------------------------------------------------------------------

def run_floor(server: Server, env: dict[str, str], use_qasync: bool) -> dict[str, float]:
    args = [sys.executable, str(ROOT / "tests/bench/floor_client.py"), "--url", server.url]
    proc = subprocess.Popen(args + (["--qasync"] if use_qasync else []), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    server.watch(proc.pid)
    wall, cpu, busy, _end = server.stream(timeout=120)
    threads = per_thread(server, events_of(server))
    out, err = proc.communicate(timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"floor client failed:\n{err[-2000:]}")
    shown = json.loads(out.strip().splitlines()[-1])
    return {"wall": wall, "cpu": cpu, "busy": busy, "lag": shown["lag"],
            "chars": shown["chars"], "threads": threads}  # type: ignore[dict-item]


def assista() -> str:
    return str(Path(sys.executable).with_name("assista"))


def finished_in_db(home: str) -> bool:
    """Whether the database holds a finished assistant message (read-only look)."""
    path = Path(home) / ".local/share/Assista/assista.sqlite3"
    if not path.exists():
        return False
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as db:
            row = db.execute("SELECT 1 FROM messages WHERE role = 'assistant' AND "
                             "status <> 'streaming' LIMIT 1").fetchone()
    except sqlite3.Error:
        return False
    return row is not None


def exported_whole(env: dict[str, str], text: str) -> bool:
    """Whether ``assista export`` shows the whole answer."""
    out = subprocess.run([assista(), "export", "--format", "json"], env=env,
                         capture_output=True, text=True, timeout=60, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"assista export failed:\n{out.stderr[-2000:]}")

    def holds(value: Any) -> bool:
        if isinstance(value, dict):
            return any(holds(v) for v in value.values())
        if isinstance(value, list):
            return any(holds(v) for v in value)
        return value == text or value == text.rstrip("\n")

    return holds(json.loads(out.stdout))


def xdotool(*args: str, env: dict[str, str]) -> str:
    return subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True,
                          timeout=60, check=False).stdout


def without_inspector(home: str) -> None:
    """The data folder of ``home`` with Preferences → Request inspector turned off, as
    a user leaves it (the settings saved by the app's own code, before it starts)."""
    from desktop.app import AppContext

    ctx = AppContext.open(Path(home) / ".local/share/Assista", environ={},
                          log_to_stderr=False)
    try:
        ctx.settings.update(inspector_enabled=False)
    finally:
        ctx.close()


def run_app(server: Server, env: dict[str, str], text: str,
            profile: str | None = None, *, inspector: bool = True,
            spy_options: tuple[str, ...] = (), costs: bool = False) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="assista-bench-home-") as home:
        if not inspector:
            without_inspector(home)
        app_env = dict(env, HOME=home, OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=server.url)
        server.costs_path = None
        if costs:  # the steps timed inside the app (tests/bench/stream_costs.py)
            hook = Path(home) / "costs-hook"
            hook.mkdir()
            # (loaded by its path: the tree under test may have a tests/ without it)
            (hook / "sitecustomize.py").write_text(
                "import importlib.util, os\n"
                f"spec = importlib.util.spec_from_file_location('stream_costs', "
                f"{str(ROOT / 'tests/bench/stream_costs.py')!r})\n"
                "module = importlib.util.module_from_spec(spec)\n"
                "spec.loader.exec_module(module)\n"
                "module.install(os.environ['ASSISTA_COSTS'])\n")
            server.costs_path = app_env["ASSISTA_COSTS"] = str(Path(home) / "costs.json")
            app_env["PYTHONPATH"] = os.pathsep.join(
                p for p in (env.get("PYTHONPATH"), str(hook)) if p)
        for key in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "ANTHROPIC_API_KEY",
                    "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENROUTER_API_KEY"):
            app_env.pop(key, None)
        log = open(Path(home) / "app.log", "w")  # noqa: SIM115
        proc = subprocess.Popen([assista()], env=app_env, stdout=log, stderr=log,
                                cwd=home)
        try:
            window = ""
            for _ in range(300):
                window = xdotool("search", "--onlyvisible", "--pid", str(proc.pid),
                                 env=app_env).split("\n")[0].strip()
                if window or proc.poll() is not None:
                    break
                time.sleep(0.1)
            if not window:
                raise RuntimeError("the app's window did not appear:\n"
                                   + (Path(home) / "app.log").read_text()[-2000:])
            time.sleep(1.5)  # the window painted, start-up work done
            xdotool("windowactivate", "--sync", window, env=app_env)
            server.watch(proc.pid)
            xdotool("type", "--delay", "15", "Write a long answer", env=app_env)
            xdotool("key", "Return", env=app_env)
            spy = None
            if profile:  # py-spy on the app for the whole stream (collapsed stacks)
                spy = subprocess.Popen([os.environ.get("PYSPY", str(
                    Path(sys.executable).with_name("py-spy"))), "record", "--pid",
                    str(proc.pid), "--format", "raw", "--threads",
                    # (native stacks need the process paused for each sample)
                    *([] if "--native" in spy_options else ["--nonblocking"]),
                    *(spy_options or ("--rate", "250")), "-o", profile])
            wall, cpu, busy, end = server.stream(timeout=120)
            threads = per_thread(server, events_of(server))
            steps = per_step(server, events_of(server))
            while time.monotonic() - end < 30 and not finished_in_db(home):
                time.sleep(0.01)
            in_db = time.monotonic() - end
            if spy is not None:
                spy.send_signal(signal.SIGINT)
                spy.wait(timeout=60)
            whole = exported_whole(app_env, text)
            return {"wall": wall, "cpu": cpu, "busy": busy, "lag": in_db,
                    "chars": float(len(text) if whole else -1),
                    "threads": threads, "steps": steps}  # type: ignore[dict-item]
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()


# -- the screen ---------------------------------------------------------------------------

def start_screen() -> tuple[dict[str, str], list[subprocess.Popen[bytes]]]:
    if shutil.which("Xvfb") is None or shutil.which("xdotool") is None:
        raise SystemExit("needs Xvfb and xdotool (apt-get install -y xvfb xdotool)")
    number = next(n for n in range(140, 200) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    procs = [subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1400x900x24",
                               "-nolisten", "tcp"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)]
    for _ in range(100):
        if Path(f"/tmp/.X11-unix/X{number}").exists():
            break
        time.sleep(0.05)
    env = dict(os.environ, DISPLAY=f":{number}", QT_QPA_PLATFORM="xcb")
    if shutil.which("openbox"):
        procs.append(subprocess.Popen(["openbox"], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
        time.sleep(0.5)
    return env, procs


def describe(name: str, r: dict[str, float]) -> str:
    return (f"    {name:<6} {r['cpu'] / r['wall']:.3f} of a core over {r['wall']:.1f} s   "
            f"load {r['load']:.2f}, machine busy {r['busy']:.2f} cores   "
            f"done {r['lag'] * 1000:.0f} ms after the stream, {r['chars']:.0f} chars\n"
            f"           µs of CPU per event by thread: {r.get('threads', '')}"
            + (f"\n           µs of CPU per event by step (each step's own):\n{r['steps']}"
               if r.get("steps") else ""))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chars", type=int, default=20_000)
    parser.add_argument("--rates", default="250,1000", help="tokens per second")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--qasync-floor", action="store_true",
                        help="also run the floor client on qasync + async httpx")
    parser.add_argument("--profile", metavar="OUT",
                        help="run the app once per rate under py-spy, stacks to OUT.RATE")
    parser.add_argument("--profile-options", default="--rate 250",
                        help="py-spy record options for --profile (e.g. '--rate 500 "
                             "--idle'); the binary: $PYSPY or the venv's py-spy")
    parser.add_argument("--inspector-off", action="store_true",
                        help="also run the app with the request inspector turned off "
                             "(what recording costs: app against app-noinsp)")
    parser.add_argument("--costs", action="store_true",
                        help="run the app once per rate with its steps timed inside it "
                             "(tests/bench/stream_costs.py): µs per event by step")
    parser.add_argument("--serve", type=float)
    args = parser.parse_args()

    from tests.bench.bench_chat_common import long_answer, verdict

    text = long_answer(args.chars)
    if args.serve:
        serve(text, args.serve)
        return 0
    env, screen = start_screen()
    kinds = ["floor", *(["qasync"] if args.qasync_floor else []), "app",
             *(["app-noinsp"] if args.inspector_off else [])]
    print(f"answer: {len(text):,} chars in {CHARS_PER_EVENT}-character events; app: "
          f"{assista()} (fresh HOME, provider from the environment) on {env['DISPLAY']}"
          f"{' with openbox' if len(screen) > 1 else ''}; {args.runs} runs each, "
          f"alternating; {os.cpu_count()} cores")
    try:
        for rate in (float(r) for r in args.rates.split(",")):
            server = Server(args.chars, rate)
            server.chars = len(text)
            if args.costs:
                r = run_app(server, env, text, costs=True)
                r["load"] = os.getloadavg()[0]
                print(f"{rate:.0f} tok/s, the app with its steps timed:\n"
                      + describe("app", r), flush=True)
                server.close()
                continue
            if args.profile:
                out = f"{args.profile}.{rate:.0f}"
                r = run_app(server, env, text, out,
                            spy_options=tuple(args.profile_options.split()))
                r["load"] = os.getloadavg()[0]
                print(describe("app", r), f"\n    profile: {out}", flush=True)
                server.close()
                continue
            figures: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
            print(f"{rate:.0f} tok/s ({rate / 4:.1f} events/s):", flush=True)
            for _ in range(args.runs):
                for kind in kinds:
                    load = os.getloadavg()[0]
                    if kind.startswith("app"):
                        r = run_app(server, env, text, inspector=kind == "app")
                    else:
                        r = run_floor(server, env, kind == "qasync")
                    r["load"] = load
                    figures[kind].append(r)
                    print(describe(kind, r), flush=True)
            server.close()
            median = {k: statistics.median(r["cpu"] / r["wall"] for r in v)
                      for k, v in figures.items()}
            events = len(text) / CHARS_PER_EVENT
            for kind, value in median.items():
                per_event = value * figures[kind][0]["wall"] / events * 1e6
                print(f"  median {kind:<6} {value:.3f} of a core, {per_event:.0f} µs "
                      f"per event")
            if "app-noinsp" in median:
                print(f"  recording costs app / app-noinsp "
                      f"{median['app'] / median['app-noinsp']:.2f}x", flush=True)
            ratio = median["app"] / median["floor"]
            lag = max(r["lag"] for r in figures["app"])
            whole = all(r["chars"] >= len(text) for r in figures["app"])
            print(f"  app / floor {ratio:.2f}x (target <= {TARGET_RATIO}x)   "
                  f"{verdict(ratio <= TARGET_RATIO)}")
            print(f"  whole answer in the database {lag * 1000:.0f} ms after the stream "
                  f"at most: {whole}   (target < {LAG_TARGET_S * 1000:.0f} ms)   "
                  f"{verdict(whole and lag < LAG_TARGET_S)}", flush=True)
    finally:
        for proc in reversed(screen):
            proc.terminate()
            proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
