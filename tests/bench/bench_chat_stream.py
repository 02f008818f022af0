"""Streams a ~20k-token markdown answer at 200 tokens/s into the real chat view, offscreen.

Prints the event-loop stall (a 4 ms heartbeat timer's lateness: p50/p99/max), the render
CPU (process CPU while streaming minus the same driver and heartbeat idling, ÷ stream
seconds), and the CPU of the naive baseline measured in the same run: the whole text
re-rendered into a QTextBrowser on every token (the previous implementation's path),
timed on sampled prefixes and summed over every token.

    .venv/bin/python tests/bench/bench_chat_stream.py [--rate 200] [--chars 80000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QFrame, QTextBrowser, QVBoxLayout, QWidget

from desktop.core.agent_events import AssistantFinished, AssistantStarted
from desktop.core.messages import Message, TextPart
from desktop.ui.chat.chat_view import ChatView
from desktop.ui.markdown.renderer import render_markdown, renderer
from desktop.ui.theme import apply_theme
from desktop.ui.window.bridge import AgentBridge
from tests.bench.bench_chat_common import (
    Heartbeat,
    chunks,
    long_answer,
    percentile,
    verdict,
)

DRIVER_MS = 5


def run_stream(app: QApplication, bridge: AgentBridge | None, pieces: list[str],
               rate: float, heart: Heartbeat) -> tuple[float, float]:
    """Emit ``pieces`` at ``rate`` a second; returns (wall seconds, CPU seconds)."""
    loop = QEventLoop()
    state = {"next": 0}
    driver = QTimer()
    driver.setTimerType(Qt.TimerType.PreciseTimer)
    driver.setInterval(DRIVER_MS)
    start = time.perf_counter()

    def tick() -> None:
        due = min(len(pieces), int((time.perf_counter() - start) * rate) + 1)
        while state["next"] < due:
            if bridge is not None:
                bridge.textDelta.emit(pieces[state["next"]])
            state["next"] += 1
        if state["next"] >= len(pieces):
            driver.stop()
            loop.quit()

    driver.timeout.connect(tick)
    cpu0 = time.process_time()
    heart.start()
    driver.start()
    loop.exec()
    heart.stop()
    return time.perf_counter() - start, time.process_time() - cpu0


def naive_update_cost(view: QTextBrowser, text: str, repeats: int = 2) -> float:
    """CPU seconds of one full re-render of ``text`` (render + setHtml + fit + paint)."""
    costs = []
    for _ in range(repeats):
        cpu0 = time.process_time()
        view.setHtml(render_markdown(text))
        doc = view.document()
        doc.setTextWidth(view.viewport().width())
        view.setFixedHeight(int(doc.size().height()) + 4)
        view.repaint()
        costs.append(time.process_time() - cpu0)
    return min(costs)


def baseline(app: QApplication, text: str, pieces: list[str], samples: int) -> tuple[
        float, float]:
    """Summed CPU of re-rendering the whole text on every token (sampled, integrated);
    returns (total CPU seconds, worst single update)."""
    host = QWidget()
    host.resize(860, 800)
    box = QVBoxLayout(host)
    view = QTextBrowser()
    view.setFrameShape(QFrame.Shape.NoFrame)
    box.addWidget(view)
    host.show()
    app.processEvents()
    ends = [0]
    for piece in pieces:
        ends.append(ends[-1] + len(piece))
    points = [int(i * (len(pieces)) / (samples - 1)) for i in range(samples)]
    costs = [naive_update_cost(view, text[:ends[max(1, p)]]) for p in points]
    total = 0.0
    for i in range(1, len(points)):
        total += (costs[i - 1] + costs[i]) / 2 * (points[i] - points[i - 1])
    host.close()
    return total, max(costs)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=200.0, help="tokens per second")
    parser.add_argument("--chars", type=int, default=82_000)
    parser.add_argument("--samples", type=int, default=12)
    args = parser.parse_args()
    app = QApplication(sys.argv[:1])
    apply_theme(app, "light")
    text = long_answer(args.chars)
    pieces = chunks(text)
    blocks = text.count("```") // 2
    print(f"answer: {len(text):,} chars, {len(pieces):,} tokens, {blocks} code blocks, "
          f"{text.count('| item')} table rows, streamed at {args.rate:.0f} tokens/s")

    heart = Heartbeat()
    idle_wall, idle_cpu = run_stream(app, None, pieces[: int(args.rate * 4)], args.rate, heart)
    idle_fraction = idle_cpu / idle_wall

    bridge = AgentBridge()
    window = QWidget()
    window.resize(1000, 820)
    QVBoxLayout(window).addWidget(chat := ChatView(bridge))
    window.show()
    app.processEvents()
    message_id = "msg_bench"
    bridge.assistantStarted.emit(AssistantStarted(message_id=message_id, round=0,
                                                  model="bench"))
    wall, cpu = run_stream(app, bridge, pieces, args.rate, heart)
    stalls = list(heart.lateness)
    widget = chat.widget_for(message_id)
    assert widget is not None
    renders = widget.body.render_count
    final = Message(id=message_id, role="assistant", parts=[TextPart(text=text)])
    bridge.assistantFinished.emit(AssistantFinished(message=final))
    app.processEvents()
    identical = "".join(s.block.html for s in widget.body._segments) == \
        renderer(False).render(text)
    render_cpu = max(0.0, cpu - idle_fraction * wall)

    base_total, base_worst = baseline(app, text, pieces, args.samples)
    p50, p99, worst = (percentile(stalls, 0.5), percentile(stalls, 0.99), max(stalls))
    share = render_cpu / wall
    ratio = base_total / render_cpu if render_cpu > 0 else float("inf")
    print(f"stream: {wall:.1f} s, {renders} renders ({renders / wall:.0f}/s), final HTML "
          f"identical to one-shot render: {identical}")
    print(f"stall p50    {p50:7.2f} ms   (target < 16 ms)   {verdict(p50 < 16)}")
    print(f"stall p99    {p99:7.2f} ms   (target < 16 ms)   {verdict(p99 < 16)}")
    print(f"stall max    {worst:7.2f} ms   (target < 50 ms)   {verdict(worst < 50)}")
    print(f"render CPU   {share * 100:6.1f} % of a core ({render_cpu:.2f} s CPU / {wall:.1f} s; "
          f"process {cpu:.2f} s, idle driver {idle_fraction * 100:.1f} %)   (target < 25 %)   "
          f"{verdict(share < 0.25)}")
    print(f"baseline     {base_total:7.1f} s CPU for the same stream = "
          f"{base_total / wall * 100:.0f} % of a core; worst update {base_worst * 1000:.0f} ms")
    print(f"CPU ratio    {ratio:7.1f}x less than the naive full re-render   (target >= 20x)   "
          f"{verdict(ratio >= 20)}")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
