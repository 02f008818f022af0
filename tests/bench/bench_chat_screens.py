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
from desktop.core.settings import ProviderConfig
from desktop.ui.theme import apply_theme
from desktop.ui.window.controller import ChatController
from desktop.ui.window.main_window import MainWindow
from tests.bench.bench_chat_common import showcase_session


def main() -> int:
    app = QApplication(sys.argv[:1])
    apply_theme(app, os.environ.get("THEME", "light"))
    with tempfile.TemporaryDirectory() as data:
        ctx = AppContext.open(data, environ={}, log_to_stderr=False)
        # As a user sees it: a provider, a few saved chats, the showcase one opened.
        config = ProviderConfig(name="OpenAI", preset="openai", base_url="http://127.0.0.1:9/v1",
                                model="gpt-4.1")
        ctx.settings_store.save_provider(config)
        ctx.settings.update(active_provider_id=config.id)
        for title in ("Trip to Lisbon: 3-day plan", "Regex for ISO dates",
                      "Explain the borrow checker"):
            ctx.sessions.create_session(title)
        session = ctx.sessions.create_session("Rendering markdown while streaming")
        for message in showcase_session():
            ctx.sessions.save_message(session.id, message)
        window = MainWindow(ChatController(ctx))
        window.resize(1360, 860)
        window.show()
        window.controller.open_session(session.id)
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
