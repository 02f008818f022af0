"""Scrolling a 2,000-message chat in the shipped ``assista``: the longest event-loop stall.

The venv's ``assista`` console script (this tree first on PYTHONPATH), a fresh HOME whose
data folder holds one chat of 2,000 messages (questions and markdown answers with code
and tables; made once and kept in the temporary folder) that the app reopens as the
last chat, the provider from the environment (a loopback model server), the real window
on a private Xvfb with openbox, no ``nice``. Once the app has loaded and is idle, the
mouse wheel is turned over the chat with xdotool (``--clicks`` notches up, 25 ms apart,
``--runs`` times, alternating with the same scrolling of a bare PySide6 window holding
the chat's text in a QPlainTextEdit: the baseline). The app logs every stall over a frame
(ASSISTA_STALL_LOG, desktop/ui/window/startup_trace.py); the longest one while the wheel
turned is the figure (target < 16.7 ms); the load is printed beside each run.

    .venv/bin/python tests/bench/bench_shipped_scroll.py [--runs 3] [--clicks 150]
        [--shot OUT.png] [--profile OUT [--profile-options '--rate 1000 --idle']]

``--profile OUT``: py-spy records the app while the wheel turns (``OUT.<run>``, py-spy's
``--format`` from the options, chrometrace unless given: each sample timed, so the
samples of one long frame can be told apart); ``$PYSPY`` names the binary.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.bench_shipped_memory import idle  # noqa: E402
from tests.bench.bench_shipped_startup import ModelServer, WindowSpy, stop  # noqa: E402
from tests.bench.bench_shipped_stream import assista, start_screen, xdotool  # noqa: E402

STALL_TARGET_MS = 1000 / 60
MESSAGES = 2000
SEED_CACHE = Path(tempfile.gettempdir()) / "assista-bench-scroll-seed"

#: The baseline, in a process of its own (the app measured is the shipped ``assista``):
#: the same text in a QPlainTextEdit of the same size, logging its stalls
#: with the same 1 ms timer.
BARE = """
import sys, time
from PySide6.QtCore import QTimer, Qt
from PySide6.QtWidgets import QApplication, QMainWindow, QPlainTextEdit
app = QApplication([])
window = QMainWindow()
box = QPlainTextEdit()
box.setReadOnly(True)
box.setPlainText(open(sys.argv[1], encoding="utf-8").read())
window.setCentralWidget(box)
window.resize(1280, 820)
window.show()
box.verticalScrollBar().setValue(box.verticalScrollBar().maximum())
last = [time.perf_counter()]
log = open(sys.argv[2], "a")
def beat():
    now = time.perf_counter()
    if now - last[0] > 1 / 60:
        log.write(f"stall {time.time():.6f} {(now - last[0]) * 1000:.1f}\\n")
        log.flush()
    last[0] = now
timer = QTimer()
timer.setTimerType(Qt.TimerType.PreciseTimer)
timer.timeout.connect(beat)
timer.start(1)
app.exec()
"""


def seeded() -> tuple[Path, Path]:
    """The data folder, and the chat's text as one file (for the baseline)."""
    schema = hashlib.sha256((ROOT / "desktop/storage/migrations.py").read_bytes()).hexdigest()
    folder = SEED_CACHE / f"{MESSAGES}-{schema[:12]}"
    if not (folder / "done").exists():
        shutil.rmtree(folder, ignore_errors=True)
        from desktop.app import AppContext
        from desktop.chat.last_chat import remember_last_chat
        from desktop.core.messages import Message, TextPart
        from tests.bench.bench_chat_common import long_answer

        print(f"saving a chat of {MESSAGES} messages (once) into {folder}", flush=True)
        ctx = AppContext.open(folder / "data", environ={}, log_to_stderr=False)
        texts = []
        try:
            session = ctx.sessions.create_session("A long chat")
            for n in range(MESSAGES // 2):
                question = f"Question {n}: what about part {n}?"
                answer = long_answer(700, seed=n)
                for role, text in (("user", question), ("assistant", answer)):
                    ctx.sessions.save_message(session.id, Message(
                        role=role, parts=[TextPart(text=text)]))
                    texts.append(text)
            remember_last_chat(ctx.settings_store, session.id)
        finally:
            ctx.close()
        (folder / "chat.txt").write_text("\n\n".join(texts), encoding="utf-8")
        (folder / "done").touch()
    return folder / "data", folder / "chat.txt"


def stalls(path: Path, start: float, end: float) -> list[tuple[float, float]]:
    """``(ms, cpu ms)`` of each stall while the wheel turned; ``cpu``: what the app's main
    thread ran in it (the rest it waited for a processor); -1 when not logged."""
    if not path.exists():
        return []
    found = []
    for line in path.read_text().splitlines():
        fields = line.split()
        at, ms = float(fields[1]), float(fields[2])
        cpu = float(fields[4]) if len(fields) > 4 else -1.0
        # a stall logged at ``at`` began ``ms`` earlier: count it if it overlaps the turning
        if at >= start and at - ms / 1000 <= end:
            found.append((ms, cpu))
    return found


def turn_wheel(window: str, env: dict[str, str], clicks: int) -> tuple[float, float]:
    xdotool("mousemove", "--window", window, "800", "400", env=env)
    start = time.time()
    xdotool("click", "--repeat", str(clicks), "--delay", "25", "4", env=env)
    return start, time.time()


def run(command: list[str], env: dict[str, str], log: Path, clicks: int,
        *, wait_loaded: Path | None = None, shot: str | None = None,
        profile: str | None = None, spy_options: tuple[str, ...] = ()) -> dict[str, float]:
    spy = WindowSpy(env)
    out = open(log.with_suffix(".out"), "w")  # noqa: SIM115
    proc = subprocess.Popen(command, env=env, stdout=out, stderr=out, cwd=log.parent)
    try:
        _shown, window = spy.new_window(120)
        spy.focused(window, 30)
        deadline = time.monotonic() + 120
        while wait_loaded is not None and "settled" not in (
                wait_loaded.read_text() if wait_loaded.exists() else ""):
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("the app did not load:\n"
                                   + log.with_suffix(".out").read_text()[-3000:])
            time.sleep(0.05)
        idle(proc.pid)
        load = os.getloadavg()[0]
        spy_proc = None
        if profile:  # py-spy on the app while the wheel turns
            options = spy_options or ("--rate", "1000", "--idle")
            fmt = () if "--format" in options else ("--format", "chrometrace")
            spy_proc = subprocess.Popen([os.environ.get("PYSPY", str(
                Path(sys.executable).with_name("py-spy"))), "record", "--pid", str(proc.pid),
                "--nonblocking", *fmt, *options, "-o", profile],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.0)  # (attached)
        start, end = turn_wheel(window, env, clicks)
        if spy_proc is not None:
            spy_proc.send_signal(signal.SIGINT)
            spy_proc.wait(timeout=60)
        idle(proc.pid)
        if shot:
            subprocess.run(["import", "-window", "root", shot], env=env, check=False)
        found = stalls(log, start, end)
        longest = max(found, default=(0.0, 0.0))
        return {"longest": longest[0], "longest_cpu": longest[1],
                "most_cpu": max((cpu for _ms, cpu in found), default=0.0),
                "count": len(found), "seconds": end - start, "load": load}
    finally:
        stop(proc)
        spy.close()
        out.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clicks", type=int, default=150)
    parser.add_argument("--shot", metavar="OUT.png")
    parser.add_argument("--profile", metavar="OUT",
                        help="py-spy the app while the wheel turns: OUT.<run>")
    parser.add_argument("--profile-options", default="--rate 1000 --idle",
                        help="py-spy record options for --profile")
    args = parser.parse_args()
    data, text = seeded()
    env, screen = start_screen()
    env = dict(env, PYTHONPATH=str(ROOT))
    server = ModelServer()
    print(f"a chat of {MESSAGES} messages; the wheel turned {args.clicks} notches up, 25 ms "
          f"apart; {args.runs} runs each, alternating; {os.cpu_count()} cores")
    figures: dict[str, list[dict[str, float]]] = {"bare": [], "app": []}
    try:
        for n in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="assista-bench-home-") as home:
                script = Path(home) / "bare.py"
                script.write_text(BARE)
                log = Path(home) / "bare-stalls.txt"
                r = run([sys.executable, str(script), str(text), str(log)], env, log,
                        args.clicks)
                figures["bare"].append(r)
                print(f"  run {n + 1} bare QPlainTextEdit  longest stall {r['longest']:5.1f} ms"
                      f" ({r['count']:.0f} over a frame in {r['seconds']:.1f} s)   load "
                      f"{r['load']:.2f}", flush=True)
                shutil.copytree(data, Path(home) / ".local/share/Assista")
                log = Path(home) / "stalls.txt"
                trace = Path(home) / "trace.txt"
                app_env = dict(env, HOME=home, ASSISTA_STARTUP_TRACE=str(trace),
                               ASSISTA_STALL_LOG=str(log), OPENAI_API_KEY="sk-bench",
                               OPENAI_BASE_URL=server.url)
                for key in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
                    app_env.pop(key, None)
                r = run([assista()], app_env, log, args.clicks, wait_loaded=trace,
                        shot=args.shot if n == args.runs - 1 else None,
                        profile=f"{args.profile}.{n + 1}" if args.profile else None,
                        spy_options=tuple(args.profile_options.split()))
                figures["app"].append(r)
                print(f"  run {n + 1} assista           longest stall {r['longest']:5.1f} ms"
                      f" ({r['count']:.0f} over a frame in {r['seconds']:.1f} s; the app's "
                      f"CPU in it {r['longest_cpu']:.1f} ms, in any stall at most "
                      f"{r['most_cpu']:.1f} ms)   load {r['load']:.2f}", flush=True)
    finally:
        server.server.shutdown()
        for p in reversed(screen):
            p.terminate()
            p.wait()
    worst = max(r["longest"] for r in figures["app"])
    bare = max(r["longest"] for r in figures["bare"])
    print(f"longest stall scrolling: assista {worst:.1f} ms, bare QPlainTextEdit {bare:.1f} ms"
          f"   (target < {STALL_TARGET_MS:.1f} ms)   "
          f"{'PASS' if worst < STALL_TARGET_MS else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
