"""Opens the shipped ``assista`` on a showcase conversation (code, table, math,
reasoning, a tool round) for screenshots: a data folder is filled once, as a user's
would be (a provider, a few saved chats, the showcase one opened last), then the
installed console script starts on it, exactly as a user starts the app:

    THEME=dark /work/shared/tools/screenshot.sh /tmp/dark.png 3 \\
        .venv/bin/python tests/bench/bench_chat_screens.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from desktop.app import AppContext
from desktop.chat.last_chat import remember_last_chat
from desktop.core.settings import ProviderConfig
from tests.bench.bench_chat_common import showcase_session


def fill(data: str, theme: str) -> None:
    ctx = AppContext.open(data, environ={}, log_to_stderr=False)
    try:
        config = ProviderConfig(name="OpenAI", preset="openai",
                                base_url="http://127.0.0.1:9/v1", model="gpt-4.1")
        ctx.providers.save(config, None)
        ctx.settings.update(active_provider_id=config.id, theme=theme)
        for title in ("Trip to Lisbon: 3-day plan", "Regex for ISO dates",
                      "Explain the borrow checker"):
            ctx.sessions.create_session(title)
        session = ctx.sessions.create_session("Rendering markdown while streaming")
        for message in showcase_session():
            ctx.sessions.save_message(session.id, message)
        remember_last_chat(ctx.settings_store, session.id)  # (the app opens the chat used last)
    finally:
        ctx.close()


def main() -> int:
    data = tempfile.mkdtemp(prefix="assista-screens-")
    fill(data, os.environ.get("THEME", "light"))
    assista = str(Path(sys.executable).with_name("assista"))
    os.execv(assista, [assista, "--data-dir", data])  # the shipped entry point


if __name__ == "__main__":
    sys.exit(main())
