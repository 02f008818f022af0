"""The markdown view's per-frame cost while an answer streams, offscreen (bench only).

The answer of ``bench_shipped_stream.py`` (``long_answer``: headings, paragraphs with
markup, code in four languages, lists, tables, quotes) is appended to a real
:class:`MarkdownView` in 16-character events with a frame (``_render_stream``) every
4 events, as at 250 tok/s. Reported per frame: CPU of the main thread
(``time.thread_time``) by step, medians and minimums of ``--runs`` runs after one to
warm up (highlighters and parsers built), the machine's load; and what is
deterministic: the characters handed to markdown-it (block and inline parses) and
Pygments (whole highlights; lines lexed as they come), and the documents rebuilt from
HTML. The last frame's HTML is checked against a whole render. It builds its view
itself: a diagnostic of one step, never a figure of issue 27's targets (those come
from the ``bench_shipped_*`` benchmarks, which start the shipped ``assista``). Run it
for another tree
with that tree first on ``PYTHONPATH``::

    QT_QPA_PLATFORM=offscreen PYTHONPATH=$PWD python tests/bench/bench_view_frames.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

EVENT = 16
PER_FRAME = 4


def timed(totals: dict[str, float], name: str, owner: Any, method: str) -> None:
    """Add ``owner.method``'s own thread CPU to ``totals[name]``."""
    real = getattr(owner, method)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return real(*args, **kwargs)
        finally:
            totals[name] = totals.get(name, 0.0) + time.thread_time() - started

    setattr(owner, method, wrapper)


def counted(counts: dict[str, int], name: str, real: Callable[..., Any],
            size: Callable[..., int]) -> Callable[..., Any]:
    def wrapper(*args: Any) -> Any:
        counts[name] = counts.get(name, 0) + size(*args)
        return real(*args)

    return wrapper


def stream(text: str, totals: dict[str, float] | None = None,
           ) -> tuple[int, float, dict[str, float], Any, str]:
    """Stream ``text``: the frames, their CPU and ``totals`` after them (not the final
    render's), the view's incremental parse, the HTML at the end."""
    from desktop.ui.markdown.view import MarkdownView

    view = MarkdownView()
    view.resize(700, 100)
    view.set_markdown("")
    frames = 0
    started = time.thread_time()
    for at in range(0, len(text), EVENT):
        view.append(text[at:at + EVENT])
        if (at // EVENT) % PER_FRAME == PER_FRAME - 1:
            view._render_stream()
            frames += 1
    view._render_stream()
    spent = time.thread_time() - started
    steps = dict(totals or {})
    incremental = view._stream
    view.flush()
    html = "".join(segment.block.html for segment in view._segments)
    view.dispose()
    view.deleteLater()
    return frames + 1, spent, steps, incremental, html


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--chars", type=int, default=20_000)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QTextDocument
    from PySide6.QtWidgets import QApplication

    from desktop.ui.markdown import segments, streaming
    from desktop.ui.markdown.renderer import renderer
    from desktop.ui.markdown.view import MarkdownView
    from tests.bench.bench_chat_common import long_answer

    _app = QApplication.instance() or QApplication(sys.argv)
    text = long_answer(args.chars)
    expected = renderer(False).render(text)
    stream(text)  # (warm: highlighters, parsers)
    print(f"{len(text):,} chars in {EVENT}-char events, a frame every {PER_FRAME}; "
          f"tree {os.path.dirname(os.path.abspath(streaming.__file__))}")
    totals: dict[str, float] = {}
    steps = {"parse (IncrementalMarkdown.update)": (streaming.IncrementalMarkdown, "update"),
             "apply (MarkdownView._apply)": (MarkdownView, "_apply"),
             "  of which Segment.set_block": (segments.Segment, "set_block"),
             "  of which new segments": (segments.Segment, "__init__"),
             "  of which laying out (_content_changed)": (MarkdownView, "_content_changed")}
    for name, (owner, method) in steps.items():
        timed(totals, name, owner, method)
    per_frame: dict[str, list[float]] = {name: [] for name in ["frame (parse + apply)",
                                                              *steps]}
    loads = []
    for _ in range(args.runs):
        totals.clear()
        loads.append(os.getloadavg()[0])
        frames, spent, steps, _inc, html = stream(text, totals)
        assert html == expected, "the streamed answer differs from a whole render"
        per_frame["frame (parse + apply)"].append(spent / frames * 1e6)
        for name in steps:
            per_frame[name].append(steps.get(name, 0.0) / frames * 1e6)
    print(f"{frames} frames; µs of CPU per frame over {args.runs} runs (1-min load "
          f"{min(loads):.1f}-{max(loads):.1f}):")
    for name, values in per_frame.items():
        print(f"  {name:42s} median {statistics.median(values):5.0f}   min {min(values):5.0f}")
    counts: dict[str, int] = {}
    md = renderer(False)
    md._code_cache.clear()  # (closed code blocks highlighted again, as the first time)
    md.parse = counted(counts, "markdown-it block parse", md.parse, len)  # type: ignore[method-assign]
    md.render_inline = counted(  # type: ignore[method-assign]
        counts, "markdown-it inline parse", md.render_inline, len)
    import pygments

    pygments.highlight = counted(counts, "Pygments whole highlight", pygments.highlight,
                                 lambda code, *_: len(code))
    QTextDocument.setHtml = counted(  # type: ignore[method-assign]
        counts, "documents built from HTML", QTextDocument.setHtml, lambda *_: 1)
    frames, _spent, _steps, incremental, _html = stream(text)
    lexed = getattr(getattr(incremental, "_open_lines", None), "lexed", None)
    if isinstance(lexed, int):
        counts["Pygments lexed as lines come"] = lexed
    print("characters (documents) per frame:")
    for name, count in counts.items():
        print(f"  {name:42s} {count / frames:7.1f}   ({count:,} in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
