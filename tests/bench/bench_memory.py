"""Memory while the user opens one long chat after another, in the real window.

50 chats of 200 messages (markdown, code, tables) are opened one after another in the
real window (MainWindow + controller, on the offscreen platform); after each, the
event loop runs until idle and the process's resident memory is read. Issue 13's
targets: peak RSS < 150 MB, and no growth after the first 10 chats (chats 11..50
may not add more than a few MB). The baseline from the same run: the RSS of the
window with no chat open.

    .venv/bin/python tests/bench/bench_memory.py [--chats 50] [--messages 200]
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

PEAK_TARGET_MB = 150.0
GROWTH_TARGET_MB = 5.0


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def seed(data: Path, chats: int, messages: int) -> list[str]:
    from desktop.app import AppContext
    from desktop.core.messages import Message, TextPart
    from tests.bench.bench_chat_common import long_answer

    ctx = AppContext.open(data, environ={}, log_to_stderr=False)
    answer = long_answer(1500)
    ids = []
    try:
        for n in range(chats):
            session = ctx.sessions.create_session(f"Chat {n}")
            for m in range(messages // 2):
                ctx.sessions.save_message(session.id, Message(
                    role="user", parts=[TextPart(text=f"Question {m} of chat {n}?")]))
                ctx.sessions.save_message(session.id, Message(
                    role="assistant", parts=[TextPart(text=f"{n}.{m} {answer}")]))
            ids.append(session.id)
    finally:
        ctx.close()
    return ids


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chats", type=int, default=50)
    parser.add_argument("--messages", type=int, default=200)
    args = parser.parse_args()
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    from desktop.app import AppContext
    from desktop.ui.theme import apply_theme
    from desktop.ui.window.controller import ChatController
    from desktop.ui.window.main_window import MainWindow

    with tempfile.TemporaryDirectory() as tmp:
        ids = seed(Path(tmp) / "data", args.chats, args.messages)
        app = QApplication(sys.argv[:1])
        apply_theme(app, "light")
        ctx = AppContext.open(Path(tmp) / "data", environ={}, log_to_stderr=False)
        window = MainWindow(ChatController(ctx))
        window.resize(1280, 820)
        window.show()
        app.processEvents()
        baseline = rss_mb()
        after: list[float] = []
        for session_id in ids:
            window.controller.open_session(session_id)
            for _ in range(5):
                app.processEvents()
            # (widgets let go with deleteLater go when the loop runs, as in the app)
            app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            gc.collect()
            after.append(rss_mb())
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        window.close()
        ctx.close()
    tenth = after[min(9, len(after) - 1)]
    growth = max(after[10:], default=tenth) - tenth
    print(f"{args.chats} chats of {args.messages} messages opened one after another")
    print(f"baseline: window with no chat open   {baseline:6.1f} MB RSS")
    print(f"after chat 1 / 10 / {len(after)}             {after[0]:6.1f} / {tenth:.1f} / "
          f"{after[-1]:.1f} MB")
    print(f"peak RSS                             {peak:6.1f} MB   (target < {PEAK_TARGET_MB:.0f} "
          f"MB)   {'PASS' if peak < PEAK_TARGET_MB else 'MISS'}")
    print(f"growth after the first 10 chats      {growth:6.1f} MB   (target <= "
          f"{GROWTH_TARGET_MB:.0f} MB)   {'PASS' if growth <= GROWTH_TARGET_MB else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
