"""Scrolls a stored 2,000-message chat (~2 M characters, with code) in the real window
on Xvfb, end to end: time to first paint, the event loop's longest stall while
scrolling both ways (a quarter viewport per 16 ms frame, each step painted and put on
the screen), and peak RSS.

Each run is a fresh process (MainWindow + controller on a data folder seeded once,
the session opened as the user opens it); the figure against issue 13's target is
the longest stall over all runs. The baseline, in the first run, is the previous
non-virtual layout: one rich-text widget per message in a scrolling column, timed on
the first 100 messages and scaled to 2,000.

    .venv/bin/python tests/bench/bench_chat_history.py [--messages 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.bench_app_common import run_child, start_display

STALL_TARGET_MS = 16.7  # one frame at 60 Hz (issue 13)
FIRST_PAINT_TARGET_MS = 300.0


def seed(data: Path, messages: int, chars: int) -> str:
    from desktop.app import AppContext
    from tests.bench.bench_chat_common import history

    ctx = AppContext.open(data, environ={}, log_to_stderr=False)
    try:
        session = ctx.sessions.create_session("Long history")
        for message in history(messages, chars):
            ctx.sessions.save_message(session.id, message)
        return session.id
    finally:
        ctx.close()


def baseline_open(app: Any, texts: list[str]) -> float:
    """Seconds to build and paint a column with one QTextBrowser per message."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QFrame, QScrollArea, QTextBrowser, QVBoxLayout, QWidget

    from desktop.ui.markdown.renderer import render_markdown

    started = time.perf_counter()
    area = QScrollArea()
    area.setWidgetResizable(True)
    column = QWidget()
    box = QVBoxLayout(column)
    for text in texts:
        view = QTextBrowser()
        view.setFrameShape(QFrame.Shape.NoFrame)
        view.setHtml(render_markdown(text))
        view.document().setTextWidth(800)
        view.setFixedHeight(int(view.document().size().height()) + 4)
        box.addWidget(view)
    area.setWidget(column)
    area.resize(1000, 820)
    area.show()
    area.verticalScrollBar().setValue(area.verticalScrollBar().maximum())
    area.repaint()
    elapsed = time.perf_counter() - started
    area.close()
    area.deleteLater()
    app.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # not during the measured run
    app.processEvents()
    return elapsed


def cpu_heartbeat() -> Any:
    """The 4 ms heartbeat, also noting the CPU the event loop's thread used between two
    beats: the app's own work in a stall, whatever the machine's load adds to it."""
    from tests.bench.bench_chat_common import Heartbeat

    class CpuHeartbeat(Heartbeat):
        def __init__(self) -> None:
            super().__init__()
            self.cpu: list[float] = []
            self._cpu = time.thread_time()

        def start(self) -> None:
            super().start()
            self.cpu.clear()
            self._cpu = time.thread_time()

        def _beat(self) -> None:
            super()._beat()
            now = time.thread_time()
            self.cpu.append((now - self._cpu) * 1000)
            self._cpu = now

    return CpuHeartbeat()


def scroll_through(chat: Any, downwards: bool, fraction: float = 0.25,
                   cpu: list[float] | None = None) -> tuple[list[float], int]:
    """Scroll by ``fraction`` of a viewport every frame (16 ms) until the end, in the
    real event loop; returns the heartbeat's lateness values and the number of steps
    (``cpu`` gets the CPU milliseconds between beats)."""
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    heart = cpu_heartbeat()
    bar = chat.verticalScrollBar()
    step = max(1, int(chat.viewport().height() * fraction))
    loop = QEventLoop()
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(16)
    steps = [0]

    def tick() -> None:
        value = bar.value()
        bar.setValue(value + step if downwards else value - step)
        steps[0] += 1
        if bar.value() == value:
            timer.stop()
            loop.quit()

    timer.timeout.connect(tick)
    heart.start()
    timer.start()
    loop.exec()
    heart.stop()
    if cpu is not None:
        cpu.extend(heart.cpu)
    return list(heart.lateness), steps[0]


def child(data: str, session_id: str, baseline: bool, fling: bool) -> dict[str, Any]:
    from PySide6.QtWidgets import QApplication

    from desktop.app import AppContext
    from desktop.ui.theme import apply_theme
    from desktop.ui.window.controller import ChatController
    from desktop.ui.window.main_window import MainWindow
    from tests.bench.bench_chat_common import percentile

    app = QApplication(sys.argv[:1])
    apply_theme(app, "light")
    ctx = AppContext.open(data, environ={}, log_to_stderr=False)
    out: dict[str, Any] = {}
    if baseline:
        texts = [m.text for m in ctx.sessions.load_active_branch(session_id).messages[:100]]
        out["baseline_ms_per_100"] = baseline_open(app, texts) * 1000
    window = MainWindow(ChatController(ctx))
    window.resize(1280, 820)
    window.show()
    for _ in range(20):
        app.processEvents()
    chat = window.chat
    started = time.perf_counter()
    window.controller.open_session(session_id)
    chat.viewport().repaint()
    out["first_paint_ms"] = (time.perf_counter() - started) * 1000
    out["messages"] = len(chat._items)
    app.processEvents()
    out["blocks_laid_out"] = sum(1 for item in chat._items if item.widget is not None)
    cpu: list[float] = []
    up, up_steps = scroll_through(chat, downwards=False, cpu=cpu)
    down, down_steps = scroll_through(chat, downwards=True, cpu=cpu)
    steps = up + down
    out.update(steps=up_steps + down_steps, p50=percentile(steps, 0.5),
               p99=percentile(steps, 0.99), max=max(steps),
               px_per_s=chat.viewport().height() * 0.25 / 0.016,
               slow=sorted(steps)[-5:], cpu_p99=percentile(cpu, 0.99), cpu_max=max(cpu),
               cpu_at_max=cpu[steps.index(max(steps))],
               load=os.getloadavg()[0])
    if fling:
        fast = scroll_through(chat, False, 0.5)[0] + scroll_through(chat, True, 0.5)[0]
        out.update(fling_p99=percentile(fast, 0.99), fling_max=max(fast))
    started = time.perf_counter()
    chat.verticalScrollBar().setValue(0)
    chat.viewport().repaint()
    out["jump_ms"] = (time.perf_counter() - started) * 1000
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    window.close()
    ctx.close()
    return out


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--chars", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-fling", action="store_true", help="skip the informational fling")
    parser.add_argument("--child", nargs=2, metavar=("DATA", "SESSION"))
    parser.add_argument("--baseline", action="store_true")
    args = parser.parse_args()
    if args.child:
        data, session = args.child
        print(json.dumps(child(data, session, args.baseline, not args.no_fling)))
        return 0
    env, xvfb, screen = start_display()
    runs: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            session_id = seed(Path(tmp) / "data", args.messages, args.chars)
            for number in range(args.runs):
                extra = ["--baseline"] if number == 0 else []
                if args.no_fling or number > 0:
                    extra.append("--no-fling")
                runs.append(run_child(__file__, ["--child", str(Path(tmp) / "data"),
                                                 session_id, *extra], env))
                r = runs[-1]
                slow = ", ".join(f"{s:.1f}" for s in r["slow"])
                print(f"run {number + 1} (load {r['load']:.2f}): scroll stall p50 "
                      f"{r['p50']:.1f} ms, p99 {r['p99']:.1f} ms, max {r['max']:.1f} ms "
                      f"(slowest {slow}; CPU in the longest {r['cpu_at_max']:.1f} ms, most in "
                      f"any step {r['cpu_max']:.1f} ms); "
                      f"first paint "
                      f"{r['first_paint_ms']:.0f} ms", flush=True)
    finally:
        if xvfb is not None:
            xvfb.terminate()
    first = runs[0]
    worst = max(r["max"] for r in runs)
    paint = statistics.median(r["first_paint_ms"] for r in runs)
    base = first["baseline_ms_per_100"] * first["messages"] / 100
    print(f"screen: {screen}, real window 1280x820, {first['messages']:,} message blocks, "
          f"load {os.getloadavg()[0]:.2f}")
    print(f"first paint  {paint:7.1f} ms  (median of {len(runs)}; {first['blocks_laid_out']} "
          f"blocks laid out)   (target < {FIRST_PAINT_TARGET_MS:.0f} ms)   "
          f"{verdict(paint < FIRST_PAINT_TARGET_MS)}")
    print(f"baseline     {base:7.0f} ms to open with one widget per message (100 timed, "
          f"scaled to {first['messages']:,}) = {base / paint:.0f}x slower")
    print(f"scroll       {first['steps']} frames of a quarter viewport "
          f"({first['px_per_s']:,.0f} px/s) a run, end to end both ways; event-loop stall "
          f"p50 {statistics.median(r['p50'] for r in runs):.1f} ms, p99 "
          f"{statistics.median(r['p99'] for r in runs):.1f} ms (medians of {len(runs)} runs)")
    each = ", ".join(f"{r['max']:.1f}" for r in runs)
    print(f"scroll max   {worst:7.1f} ms   over {len(runs)} runs (each: "
          f"{each})   (target < {STALL_TARGET_MS} ms)   "
          f"{verdict(worst < STALL_TARGET_MS)}")
    cpu_max = max(r["cpu_max"] for r in runs)
    print(f"step CPU     {cpu_max:7.1f} ms   the event loop's own CPU between two heartbeats, "
          f"most over {len(runs)} runs (p99 {statistics.median(r['cpu_p99'] for r in runs):.1f} "
          f"ms): the stall without the machine's load (informational)")
    if "fling_max" in first:
        print(f"fling        twice as fast ({first['px_per_s'] * 2:,.0f} px/s): p99 "
              f"{first['fling_p99']:.1f} ms, max {first['fling_max']:.1f} ms (informational)")
    print(f"jump         {first['jump_ms']:7.1f} ms   bottom to top in one step (informational)")
    peak = max(r["peak_rss_mb"] for r in runs)
    print(f"peak RSS     {peak:7.0f} MB   (the first run includes the baseline)   "
          f"(target < 400 MB)   {verdict(peak < 400)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
