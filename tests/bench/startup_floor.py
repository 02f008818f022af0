"""The start-up floor of the packages the app is made of, with none of the app.

A second baseline for ``bench_shipped_startup.py``, beside the bare window: the same
1280x820 window, with a text box that has the focus; once its first frame is painted it
loads and uses, as little as answering a question needs, the packages the brief fixes:

* pydantic, with one model (a provider's settings) validated (``--without-pydantic``:
  the same fields in a plain class, to show what pydantic's import and first model cost);
* sqlite3, a database opened (in memory: no data folder to check or migrate);
* asyncio on Qt's loop (qasync), and httpx's async client (anyio's asyncio backend comes
  with its first request). Its TLS context skips the CA bundle: the app reads that on a
  thread while it loads, and a loopback ``http://`` server never uses it.

Enter, at any moment, queues the box's text; once all that is loaded each queued text is
sent at once as a streamed Chat Completions request to ``OPENAI_BASE_URL``. The benchmark
types a question the moment the window shows, as it does for the app, and takes the time
the server receives it. No Markdown, no chat list, no storage of the answer: a floor, not
a rival client.

    python tests/bench/startup_floor.py [--without-pydantic]
        (OPENAI_BASE_URL=http://127.0.0.1:PORT/v1)
"""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QMainWindow, QPlainTextEdit


class EnterQueues(QObject):
    """Enter in ``box`` queues its text; the rest of the keys type as usual."""

    def __init__(self, box: QPlainTextEdit) -> None:
        super().__init__(box)
        self.box = box
        self.queued: list[str] = []
        self.on_queued = lambda: None
        box.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent)
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)):
            self.queued.append(self.box.toPlainText())
            self.box.clear()
            self.on_queued()
            return True
        return False


class ProviderFields:
    """The provider's fields without pydantic (``--without-pydantic``)."""

    def __init__(self, base_url: str, api_key: str = "", model: str = "gpt-4o-mini",
                 temperature: float | None = None) -> None:
        self.base_url, self.api_key, self.model = base_url, api_key, model
        self.temperature = temperature


def typed_settings(values: dict[str, str]) -> ProviderFields:
    """The provider's settings validated by a pydantic model, as the app's options are."""
    import pydantic

    class ProviderSettings(pydantic.BaseModel):
        """A provider as the app keeps it: the least a request needs."""

        base_url: str
        api_key: str = ""
        model: str = "gpt-4o-mini"
        temperature: float | None = pydantic.Field(default=None, ge=0, le=2)

    checked = ProviderSettings.model_validate(values)
    return ProviderFields(checked.base_url, checked.api_key, checked.model,
                          checked.temperature)


def plain_settings(values: dict[str, str]) -> ProviderFields:
    """The same fields unchecked: what the floor costs without pydantic."""
    return ProviderFields(**values)


def main() -> int:
    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    window.resize(1280, 820)
    box = QPlainTextEdit()
    window.setCentralWidget(box)
    enter = EnterQueues(box)
    window.show()
    box.setFocus()
    app.processEvents()  # (the first frame; typing is taken from here on)

    settings = {"base_url": os.environ["OPENAI_BASE_URL"],
                "api_key": os.environ.get("OPENAI_API_KEY", "")}
    config = (plain_settings(settings) if "--without-pydantic" in sys.argv[1:]
              else typed_settings(settings))
    app.processEvents()
    import sqlite3

    sqlite3.connect(":memory:").execute("create table chats (id text primary key)")
    app.processEvents()
    import asyncio

    import httpx
    import qasync

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    client = httpx.AsyncClient(verify=False, timeout=30)  # (see the module's docstring)
    tasks: set[asyncio.Task[None]] = set()

    async def ask(text: str) -> None:
        body = {"model": config.model, "stream": True,
                "messages": [{"role": "user", "content": text}]}
        headers = {"Authorization": f"Bearer {config.api_key}"}
        async with client.stream("POST", config.base_url.rstrip("/") + "/chat/completions",
                                 json=body, headers=headers) as response:
            async for _chunk in response.aiter_bytes():
                pass

    def send_queued() -> None:
        while enter.queued:
            task = loop.create_task(ask(enter.queued.pop(0)))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    enter.on_queued = send_queued
    loop.call_soon(send_queued)
    with loop:
        loop.run_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
