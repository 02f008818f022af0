"""Two chats streaming at once in the shipped ``assista``, against one chat alone.

The paced SSE server of tests/bench/bench_shipped_stream.py (its own process, OpenAI's
chunks of ~16 characters, telling when each long stream starts and ends) and the venv's
``assista`` console script as a user starts it: a fresh HOME, the provider from
OPENAI_API_KEY / OPENAI_BASE_URL, the real window on a private Xvfb with openbox, no
``nice``. Questions are typed with xdotool.

* ``one``: a question is asked; the app's CPU (utime+stime, all threads) over the
  stream's wall time;
* ``two``: a question is asked, then Ctrl+N and a second one: both answers stream at the
  same time, the second on screen and the first in the background; the app's CPU over
  the time both streamed (from the second's start to the first's end).

Runs alternate one / two (fresh processes), ``--runs`` times; target (issue 11):
CPU(two) <= 1.3 x CPU(one): a chat nobody looks at costs no rendering. The load is
printed beside each run.

    .venv/bin/python tests/bench/bench_shipped_two_chats.py [--rate 250] [--chars 20000]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.bench_shipped_stream import (  # noqa: E402
    Server,
    assista,
    cpu_seconds,
    start_screen,
    xdotool,
)

TARGET_RATIO = 1.3


def mark(server: Server, kind: str, pid: int, timeout: float = 120) -> tuple[float, float]:
    """Wait for the server's next ``kind`` mark: (monotonic time, the app's CPU then)."""
    got, at = server.marks.get(timeout=timeout)
    cpu = cpu_seconds(pid)
    assert got == kind, (got, kind)
    return at, cpu


def run(server: Server, env: dict[str, str], two: bool,
        profile: str = "", spy_options: tuple[str, ...] = ()) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="assista-bench-home-") as home:
        app_env = dict(env, HOME=home, OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=server.url)
        for key in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "ANTHROPIC_API_KEY",
                    "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENROUTER_API_KEY"):
            app_env.pop(key, None)
        log = open(Path(home) / "app.log", "w")  # noqa: SIM115
        proc = subprocess.Popen([assista()], env=app_env, stdout=log, stderr=log, cwd=home)
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
            load = os.getloadavg()[0]
            xdotool("type", "--delay", "15", "Write a long answer", env=app_env)
            xdotool("key", "Return", env=app_env)
            start, cpu0 = mark(server, "start", proc.pid)
            if two:
                xdotool("key", "ctrl+n", env=app_env)
                xdotool("type", "--delay", "15", "Write another long answer", env=app_env)
                xdotool("key", "Return", env=app_env)
                start, cpu0 = mark(server, "start", proc.pid)
            spy = None
            if profile:  # py-spy while both stream (raw stacks, every thread)
                spy = subprocess.Popen([str(Path(sys.executable).with_name("py-spy")),
                                        "record", "--pid", str(proc.pid),
                                        *(spy_options or ("--rate", "250", "--nonblocking")),
                                        "--format", "raw", "--threads", "-o", profile])
            end, cpu1 = mark(server, "end", proc.pid)
            if spy is not None:
                spy.send_signal(signal.SIGINT)
                spy.wait(timeout=60)
            if two:
                mark(server, "end", proc.pid)
            return {"cpu": (cpu1 - cpu0) / (end - start), "wall": end - start, "load": load}
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=250, help="tokens per second")
    parser.add_argument("--chars", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", metavar="OUT",
                        help="one 'two' run under py-spy (raw stacks to OUT), no figures")
    parser.add_argument("--profile-options", default="--rate 250 --nonblocking",
                        help="py-spy record options for --profile (e.g. '--rate 200 "
                             "--native': Qt's C++ too)")
    args = parser.parse_args()
    from tests.bench.bench_chat_common import long_answer, verdict

    env, screen = start_screen()
    env = dict(env, PYTHONPATH=str(ROOT))
    server = Server(args.chars, args.rate)
    server.chars = len(long_answer(args.chars))
    print(f"answers of {server.chars:,} chars at {args.rate:.0f} tok/s each; app: {assista()}"
          f" on {env['DISPLAY']}; {args.runs} runs each, alternating; {os.cpu_count()} cores")
    figures: dict[str, list[float]] = {"one": [], "two": []}
    try:
        if args.profile:
            r = run(server, env, True, args.profile, tuple(args.profile_options.split()))
            print(f"two chats under py-spy: {r['cpu']:.3f} of a core; stacks in {args.profile}")
            return 0
        for n in range(args.runs):
            for kind in ("one", "two"):
                r = run(server, env, kind == "two")
                figures[kind].append(r["cpu"])
                print(f"  run {n + 1} {kind}: {r['cpu']:.3f} of a core over {r['wall']:.1f} s"
                      f"   load {r['load']:.2f}", flush=True)
    finally:
        server.close()
        for proc in reversed(screen):
            proc.terminate()
            proc.wait()
    one, two = statistics.median(figures["one"]), statistics.median(figures["two"])
    ratio = two / one
    print(f"median one chat {one:.3f}, two chats {two:.3f} of a core: {ratio:.2f}x "
          f"(target <= {TARGET_RATIO}x)   {verdict(ratio <= TARGET_RATIO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
