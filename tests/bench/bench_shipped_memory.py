"""Memory while the user opens one long chat after another, in the shipped ``assista``.

The venv's ``assista`` console script (this tree first on PYTHONPATH) with a fresh HOME
whose data folder holds 50 chats of 200 messages (markdown, code, tables; made once and
kept in the temporary folder), the real window on a private Xvfb with openbox, no
``nice``. Once the app has loaded (its ASSISTA_STARTUP_TRACE says so), the chats are
opened as a user does: the first in the list clicked, then Down and Enter in the list
for each next one. After each, the app is left until it is idle (its CPU time still for
0.3 s); the resident memory is read from /proc (VmRSS; VmHWM for the peak). Issue 13's
targets: peak RSS < 150 MB, and chats 11..50 add no more than a few MB. A baseline from
the same run: a bare PySide6 window's RSS; the load is printed beside each figure. The
provider comes from the environment (a loopback model server): without one the app opens
its Providers dialog, which would take the keys.

    .venv/bin/python tests/bench/bench_shipped_memory.py [--chats 50] [--messages 200]
        [--shot OUT.png]   (a screenshot of the window after the last chat)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.bench_shipped_startup import BARE, ModelServer, WindowSpy, stop  # noqa: E402
from tests.bench.bench_shipped_stream import (  # noqa: E402
    TICKS,
    assista,
    cpu_seconds,
    start_screen,
    xdotool,
)

PEAK_TARGET_MB = 150.0
FIRST_ROW = (60, 206)  # the first chat in the list, from the window's top left corner
GROWTH_TARGET_MB = 5.0
SEED_CACHE = Path(tempfile.gettempdir()) / "assista-bench-memory-seed"


def seeded(chats: int, messages: int) -> Path:
    schema = hashlib.sha256((ROOT / "desktop/storage/migrations.py").read_bytes()).hexdigest()
    folder = SEED_CACHE / f"{chats}x{messages}-{schema[:12]}"
    if not (folder / "done").exists():
        shutil.rmtree(folder, ignore_errors=True)
        from desktop.app import AppContext
        from desktop.core.messages import Message, TextPart
        from tests.bench.bench_chat_common import long_answer

        print(f"saving {chats} chats of {messages} messages (once) into {folder}", flush=True)
        ctx = AppContext.open(folder / "data", environ={}, log_to_stderr=False)
        answer = long_answer(1500)
        try:
            for n in range(chats):
                session = ctx.sessions.create_session(f"Chat {n}")
                for m in range(messages // 2):
                    ctx.sessions.save_message(session.id, Message(
                        role="user", parts=[TextPart(text=f"Question {m} of chat {n}?")]))
                    ctx.sessions.save_message(session.id, Message(
                        role="assistant", parts=[TextPart(text=f"{n}.{m} {answer}")]))
        finally:
            ctx.close()
        (folder / "done").touch()
    return folder / "data"


def status_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


def idle(pid: int, timeout: float = 20.0) -> float:
    """Wait until ``pid`` spends < 3 ms of CPU in 0.3 s; the seconds waited."""
    start = time.monotonic()
    last = cpu_seconds(pid)
    while time.monotonic() - start < timeout:
        time.sleep(0.3)
        now = cpu_seconds(pid)
        if now - last < max(0.003, 1 / TICKS):
            break
        last = now
    return time.monotonic() - start


def bare_rss(env: dict[str, str], script: Path) -> float:
    spy = WindowSpy(env)
    proc = subprocess.Popen([sys.executable, str(script)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        spy.new_window(60)
        idle(proc.pid)
        return status_mb(proc.pid, "VmHWM")
    finally:
        stop(proc)
        spy.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chats", type=int, default=50)
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--shot", metavar="OUT.png")
    args = parser.parse_args()
    data = seeded(args.chats, args.messages)
    env, screen = start_screen()
    env = dict(env, PYTHONPATH=str(ROOT))
    try:
        with tempfile.TemporaryDirectory(prefix="assista-bench-home-") as home:
            script = Path(home) / "bare_window.py"
            script.write_text(BARE)
            load = os.getloadavg()[0]
            bare = bare_rss(env, script)
            print(f"bare PySide6 window: peak RSS {bare:.1f} MB   load {load:.2f}", flush=True)
            shutil.copytree(data, Path(home) / ".local/share/Assista")
            trace = Path(home) / "trace.txt"
            server = ModelServer()  # (the provider: without one the Providers dialog opens)
            app_env = dict(env, HOME=home, ASSISTA_STARTUP_TRACE=str(trace),
                           OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=server.url)
            for key in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
                        "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
                app_env.pop(key, None)
            log = open(Path(home) / "app.log", "w")  # noqa: SIM115
            spy = WindowSpy(app_env)
            proc = subprocess.Popen([assista()], env=app_env, stdout=log, stderr=log, cwd=home)
            try:
                _shown, window = spy.new_window(120)
                spy.focused(window, 30)
                deadline = time.monotonic() + 120
                while "loaded" not in (trace.read_text() if trace.exists() else ""):
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise RuntimeError("the app did not load:\n"
                                           + (Path(home) / "app.log").read_text()[-3000:])
                    time.sleep(0.05)
                idle(proc.pid)
                loaded = status_mb(proc.pid, "VmRSS")
                print(f"assista loaded, no chat open: RSS {loaded:.1f} MB   load "
                      f"{os.getloadavg()[0]:.2f}", flush=True)
                # the first chat of the list clicked (where the newest chat is listed on
                # the default layout), then Down and Enter in the list for each next one
                print("window geometry:", " ".join(xdotool(
                    "getwindowgeometry", window, env=app_env).split()[1:]))
                xdotool("mousemove", "--window", window, str(FIRST_ROW[0]), str(FIRST_ROW[1]),
                        "click", "1", env=app_env)
                after: list[float] = []
                for n in range(args.chats):
                    if n:
                        xdotool("key", "Down", "Return", env=app_env)
                    waited = idle(proc.pid)
                    after.append(status_mb(proc.pid, "VmRSS"))
                    if n in (0, 9, 24, args.chats - 1):
                        print(f"  chat {n + 1:2}: RSS {after[-1]:.1f} MB (idle after "
                              f"{waited:.1f} s)   load {os.getloadavg()[0]:.2f}", flush=True)
                peak = status_mb(proc.pid, "VmHWM")
                if args.shot:
                    subprocess.run(["import", "-window", "root", args.shot], env=app_env,
                                   check=False)
            finally:
                stop(proc)
                spy.close()
                log.close()
    finally:
        for p in reversed(screen):
            p.terminate()
            p.wait()
    tenth = after[min(9, len(after) - 1)]
    growth = max(after[10:], default=tenth) - tenth
    print(f"{args.chats} chats of {args.messages} messages opened one after another")
    print(f"after chat 1 / 10 / {len(after)}: {after[0]:.1f} / {tenth:.1f} / {after[-1]:.1f} MB")
    print(f"peak RSS {peak:.1f} MB = {peak / bare:.2f}x the bare window's {bare:.1f} MB   "
          f"(target < {PEAK_TARGET_MB:.0f} MB)   {'PASS' if peak < PEAK_TARGET_MB else 'MISS'}")
    print(f"growth after the first 10 chats {growth:.1f} MB   (target <= "
          f"{GROWTH_TARGET_MB:.0f} MB)   {'PASS' if growth <= GROWTH_TARGET_MB else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
