"""The floor: the least a Qt client can spend showing an OpenAI-style stream.

A text-only PySide6 window. A worker thread reads the SSE stream with a synchronous
httpx client and decodes each event with ``json``; the Qt thread appends what arrived
to a QPlainTextEdit (1280x820) at most 15 times a second. Nothing else: no markdown,
no database, no event-loop integration. ``--qasync`` runs the same client on qasync
with an async httpx client instead (to show what the event-loop integration costs).

    .venv/bin/python tests/bench/floor_client.py --url http://127.0.0.1:PORT/v1 [--qasync]

Exits when the stream has ended and the whole text is shown; prints one JSON line
(characters shown, seconds from the stream's end to the frame that showed it all).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time

import httpx

FRAME_MS = 1000 // 15
BODY = {"model": "gpt-4o-mini", "stream": True,
        "messages": [{"role": "user", "content": "Write a long answer"}]}
HEADERS = {"Authorization": "Bearer sk-floor"}


class Inbox:
    """What the reader has decoded and the view has not shown yet."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.parts: list[str] = []
        self.done = False
        self.ended_at = 0.0

    def put(self, text: str) -> None:
        with self.lock:
            self.parts.append(text)

    def finish(self) -> None:
        with self.lock:
            self.done = True
            self.ended_at = time.perf_counter()

    def take(self) -> tuple[str, bool]:
        with self.lock:
            text = "".join(self.parts)
            self.parts.clear()
            return text, self.done


def content(line: str) -> str | None:
    """The text of one ``data:`` line, ``None`` at ``[DONE]``."""
    if not line.startswith("data:"):
        return ""
    data = line[5:].strip()
    if data == "[DONE]":
        return None
    choices = json.loads(data).get("choices") or [{}]
    return str((choices[0].get("delta") or {}).get("content") or "")


def read_sync(url: str, inbox: Inbox) -> None:
    with httpx.Client(timeout=60) as client, \
            client.stream("POST", f"{url}/chat/completions", json=BODY,
                          headers=HEADERS) as response:
        for line in response.iter_lines():
            text = content(line)
            if text is None:
                break
            if text:
                inbox.put(text)
    inbox.finish()


async def read_async(url: str, inbox: Inbox) -> None:
    async with httpx.AsyncClient(timeout=60) as client, \
            client.stream("POST", f"{url}/chat/completions", json=BODY,
                          headers=HEADERS) as response:
        async for line in response.aiter_lines():
            text = content(line)
            if text is None:
                break
            if text:
                inbox.put(text)
    inbox.finish()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--qasync", action="store_true")
    args = parser.parse_args()

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QPlainTextEdit

    app = QApplication(sys.argv[:1])
    view = QPlainTextEdit()
    view.setReadOnly(True)
    view.resize(1280, 820)
    view.show()
    inbox = Inbox()
    result: dict[str, float] = {}

    def frame() -> None:
        text, done = inbox.take()
        if text:
            cursor = view.textCursor()
            cursor.movePosition(cursor.MoveOperation.End)
            cursor.insertText(text)
            view.setTextCursor(cursor)
        if done:
            timer.stop()
            result["chars"] = float(len(view.toPlainText()))
            result["lag"] = time.perf_counter() - inbox.ended_at
            finished()

    timer = QTimer()
    timer.setInterval(FRAME_MS)
    timer.timeout.connect(frame)
    timer.start()
    if args.qasync:
        import asyncio

        import qasync

        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        shown: asyncio.Future[None] = loop.create_future()
        finished = lambda: shown.set_result(None)  # noqa: E731

        async def run() -> None:
            await read_async(args.url, inbox)
            await shown

        with loop:
            loop.run_until_complete(run())
    else:
        finished = app.quit
        threading.Thread(target=read_sync, args=(args.url, inbox), daemon=True).start()
        app.exec()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
