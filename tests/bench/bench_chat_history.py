"""Opens a 2,000-message session (~2 M characters, with code) in the real chat view,
offscreen: time to first paint, the slowest step while scrolling end to end (both
ways, half a viewport per step, each step painted), and peak RSS.

The baseline, in the same run, is the previous non-virtual layout: one rich-text
widget per message in a scrolling column, timed on the first 100 messages and scaled
to 2,000.

    .venv/bin/python tests/bench/bench_chat_history.py [--messages 2000]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import QEvent, QEventLoop, Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QScrollArea,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop.core.messages import Message
from desktop.ui.chat.chat_view import ChatView
from desktop.ui.markdown.renderer import render_markdown
from desktop.ui.theme import apply_theme
from desktop.ui.window.bridge import AgentBridge
from tests.bench.bench_chat_common import (
    Heartbeat,
    history,
    percentile,
    verdict,
)


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def baseline_open(app: QApplication, messages: list[Message]) -> float:
    """Seconds to build and paint a column with one QTextBrowser per message."""
    started = time.perf_counter()
    area = QScrollArea()
    area.setWidgetResizable(True)
    column = QWidget()
    box = QVBoxLayout(column)
    for message in messages:
        view = QTextBrowser()
        view.setFrameShape(QFrame.Shape.NoFrame)
        view.setHtml(render_markdown(message.text))
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


def scroll_through(chat: ChatView, downwards: bool, heart: Heartbeat,
                   fraction: float = 0.25) -> tuple[list[float], int]:
    """Scroll by ``fraction`` of a viewport every frame (16 ms) until the end, in the
    real event loop; returns the heartbeat's lateness values and the number of steps."""
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
    return list(heart.lateness), steps[0]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--chars", type=int, default=2_000_000)
    args = parser.parse_args()
    app = QApplication(sys.argv[:1])
    apply_theme(app, "light")
    messages = history(args.messages, args.chars)
    total = sum(len(m.text) for m in messages)
    code = sum(m.text.count("```") // 2 for m in messages)
    print(f"session: {len(messages):,} messages, {total:,} characters, {code:,} code blocks")
    rss_before = rss_mb()

    sample = messages[:100]
    base = baseline_open(app, sample) * len(messages) / len(sample)

    window = QWidget()
    window.resize(1000, 820)
    chat = ChatView(AgentBridge())
    QVBoxLayout(window).addWidget(chat)
    window.show()
    app.processEvents()
    started = time.perf_counter()
    chat.show_messages(messages)
    chat.viewport().repaint()
    first_paint = (time.perf_counter() - started) * 1000
    app.processEvents()
    live = sum(1 for item in chat._items if item.widget is not None)
    heart = Heartbeat()
    up, up_steps = scroll_through(chat, downwards=False, heart=heart)
    down, down_steps = scroll_through(chat, downwards=True, heart=heart)
    speed = chat.viewport().height() * 0.25 / 0.016
    fling_up, _ = scroll_through(chat, downwards=False, heart=heart, fraction=0.5)
    fling_down, _ = scroll_through(chat, downwards=True, heart=heart, fraction=0.5)
    started = time.perf_counter()
    chat.verticalScrollBar().setValue(0)
    chat.viewport().repaint()
    jump = (time.perf_counter() - started) * 1000
    peak = rss_mb()
    worst = max(up + down)
    steps = up + down
    print(f"first paint  {first_paint:7.1f} ms  ({live} message blocks laid out)   "
          f"(target < 300 ms)   {verdict(first_paint < 300)}")
    print(f"baseline     {base * 1000:7.0f} ms to open with one widget per message "
          f"(100 timed, scaled to {len(messages):,}) = {base * 1000 / first_paint:.0f}x slower")
    print(f"scroll       {up_steps + down_steps} frames of a quarter viewport "
          f"({speed:,.0f} px/s), end to end both ways; event-loop stall "
          f"p50 {percentile(steps, 0.5):.1f} ms, p99 {percentile(steps, 0.99):.1f} ms")
    print(f"scroll max   {worst:7.1f} ms   (target no stall > 50 ms)   {verdict(worst < 50)}")
    fling = fling_up + fling_down
    print(f"fling        twice as fast ({speed * 2:,.0f} px/s): p99 "
          f"{percentile(fling, 0.99):.1f} ms, max {max(fling):.1f} ms (informational)")
    print(f"jump         {jump:7.1f} ms   bottom to top in one step (informational)")
    print(f"peak RSS     {peak:7.0f} MB   (before opening: {rss_before:.0f} MB, includes the "
          f"baseline)   (target < 400 MB)   {verdict(peak < 400)}")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
