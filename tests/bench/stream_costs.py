"""CPU per streamed event by step, measured inside the shipped app (bench only).

``bench_shipped_stream.py --costs`` starts the app with a ``sitecustomize`` that calls
:func:`install`: each step's functions are wrapped to add up the CPU time of their
thread (``time.thread_time``) while they run, less the wrapped steps they call (every
figure is the step's own). A daemon thread writes the totals to ``$ASSISTA_COSTS``
every 50 ms; the bench reads them when the stream starts and ends. What the main
thread spent outside every step is Qt's own work and the event loop (painting, X11,
events, qasync's callbacks, the handover). The wrappers cost ~2 µs a call: these runs
are for the breakdown, not for the ratio.
"""

from __future__ import annotations

import importlib
import json
import os
import threading
import time
from collections.abc import Callable
from functools import wraps
from typing import Any

#: step -> functions (module, class, method) whose own CPU time is that step's.
STEPS: dict[str, list[tuple[str, str, str]]] = {
    "decode (SSE)": [("desktop.providers.sse", "SSEDecoder", "feed")],
    "parse (JSON, events)": [("desktop.providers.openai_chat_stream",
                              "OpenAIChatStreamParser", "feed")],
    "events (turn, recorder, meter)": [
        ("desktop.chat.running", "RunningTurn", "emit"),
        ("desktop.core.conversation", "SessionRecorder", "__call__"),
        ("desktop.chat.generation_stats", "GenerationMeter", "__call__")],
    "save queue (loop side)": [("desktop.core.save_queue", "SaveQueue", "put_latest"),
                               ("desktop.core.save_queue", "SaveQueue", "put")],
    "bridge (controller, chat view)": [
        ("desktop.ui.window.controller", "ChatController", "_on_event"),
        ("desktop.ui.chat.chat_view", "ChatView", "_on_text"),
        ("desktop.ui.chat.message_widget", "MessageWidget", "append_text"),
        ("desktop.ui.markdown.view", "MarkdownView", "append")],
    "view: parse + apply": [("desktop.ui.markdown.view", "MarkdownView", "_render_stream")],
    "view: column relayout": [("desktop.ui.chat.chat_layout", "VirtualColumn", "_relayout")],
    "view: paint": [("desktop.ui.markdown.view", "MarkdownView", "paintEvent"),
                    ("desktop.ui.chat.column_scroll_bar", "ColumnScrollBar", "paintEvent"),
                    ("desktop.ui.chat.chat_layout", "VirtualColumn", "paintEvent")],
}

_totals: dict[str, float] = {}
_local = threading.local()


def _wrap(step: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        stack: list[float] = getattr(_local, "stack", None) or []
        _local.stack = stack
        stack.append(0.0)  # CPU of wrapped steps called from this one
        started = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent = time.thread_time() - started
            inner = stack.pop()
            _totals[step] = _totals.get(step, 0.0) + spent - inner
            if stack:
                stack[-1] += spent

    return timed


def install(path: str) -> None:
    for step, places in STEPS.items():
        for module_name, class_name, method in places:
            cls = getattr(importlib.import_module(module_name), class_name)
            setattr(cls, method, _wrap(step, getattr(cls, method)))

    def write() -> None:
        while True:
            time.sleep(0.05)
            temporary = f"{path}.tmp"
            with open(temporary, "w") as out:
                json.dump(dict(_totals), out)
            os.replace(temporary, path)

    threading.Thread(target=write, name="bench-costs", daemon=True).start()


def read(path: str) -> dict[str, float]:
    try:
        with open(path) as source:
            return dict(json.load(source))
    except (OSError, ValueError):
        return {}
