"""Opens the main window on a showcase conversation (code, table, math, reasoning, a
tool round) for screenshots:

    THEME=dark /work/shared/tools/screenshot.sh /tmp/dark.png 3 \\
        .venv/bin/python tests/bench/bench_chat_screens.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.ui.controller import ChatController
from desktop.ui.main_window import MainWindow
from desktop.ui.theme import apply_theme
from tests.bench.bench_chat_common import showcase_session


def main() -> int:
    app = QApplication(sys.argv[:1])
    apply_theme(app, os.environ.get("THEME", "light"))
    with tempfile.TemporaryDirectory() as data:
        ctx = AppContext.open(data, environ={}, log_to_stderr=False)
        window = MainWindow(ChatController(ctx))
        window.resize(1360, 860)
        window.show()
        window.chat.show_messages(showcase_session())
        if os.environ.get("SCROLL_TOP"):
            QTimer.singleShot(300, lambda: window.chat.verticalScrollBar().setValue(0))
        seconds = float(os.environ.get("SECONDS_OPEN", "0"))
        if seconds:
            QTimer.singleShot(int(seconds * 1000), app.quit)
        code = app.exec()
        ctx.close()
    return code


if __name__ == "__main__":
    sys.exit(main())
