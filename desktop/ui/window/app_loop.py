"""The window's asyncio loop (qasync): running from before the app can start any work
on it until the last of that work is done.

qasync runs asyncio's callbacks from Qt's timers and socket notifiers, so whenever Qt
handles events -- also while the loop is *not* running: in ``processEvents`` before
``run_forever``, and in the pass qasync's ``run_until_complete`` makes after it. A task
stepped then has no running loop, and every ``get_running_loop()`` in it fails ("no
running event loop"): a question sent while the window was being filled in, or the
saving of the answers stopped by quitting, failed that way. So:

* the loop runs first, and the window is filled in by a plain callback of the running
  loop (``start``; not a task: it handles the window's events between its steps,
  which step the tasks started meanwhile);
* when the app quits, the chats are shut down on the loop (``shutdown``: answers
  stopped and saved), and then the async generators still open are closed on it;
* Qt's events are never handed to qasync outside of ``run_forever``.

qasync installs no hooks for async generators either: one dropped half-way was then
closed by the garbage collector without a loop ("async generator ignored
GeneratorExit"). The loop's own hooks are installed while it runs the app.

SIGTERM, SIGHUP (the session ending, ``kill``) and SIGINT (Ctrl+C in the terminal) end
the app like Quit, without the question: what the chats wrote so far is saved, marked
stopped.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import qasync
from PySide6.QtWidgets import QApplication

log = logging.getLogger(__name__)

T = TypeVar("T")

#: What ends the app like Quit (without asking): the session ending, ``kill``, Ctrl+C.
END_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def run_app(app: QApplication, start: Callable[[], T],
            shutdown: Callable[[T], Awaitable[None]],
            on_signal: Callable[[], None] | None = None) -> None:
    """Run ``start()`` on the running loop, then the app until it quits, then
    ``shutdown(what start returned)`` on the loop. An exception of ``start`` quits the
    app and is raised here (``shutdown`` does not run). ``on_signal``: called on
    an end signal (default: the app quits)."""
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    previous_hooks = asyncgen_hooks(loop)
    started: list[T] = []
    failed: list[BaseException] = []

    def begin() -> None:
        try:
            started.append(start())
        except BaseException as exc:  # raised by run_app once the loop has returned
            failed.append(exc)
            app.quit()

    handled = _handle_end_signals(loop, on_signal or app.quit)
    try:
        loop.call_soon(begin)
        loop.run_forever()  # until the app quits
        if failed:
            raise failed[0]
        if started:
            run_until_done(loop, shutdown(started[0]))
        run_until_done(loop, loop.shutdown_asyncgens())
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
        sys.set_asyncgen_hooks(*previous_hooks)
        loop.close()
        asyncio.set_event_loop(None)


def asyncgen_hooks(loop: qasync.QEventLoop) -> tuple[Any, Any]:
    """Install ``loop``'s own hooks for async generators (what asyncio's
    ``run_forever`` does and qasync's does not): one dropped half-way is closed on the
    loop, and ``loop.shutdown_asyncgens()`` closes those still open. Returns the hooks
    before, for ``sys.set_asyncgen_hooks(*previous)``."""
    firstiter, finalizer = sys.get_asyncgen_hooks()
    sys.set_asyncgen_hooks(firstiter=loop._asyncgen_firstiter_hook,
                           finalizer=loop._asyncgen_finalizer_hook)
    return firstiter, finalizer


def run_until_done(loop: asyncio.AbstractEventLoop, work: Awaitable[T]) -> T:
    """Run the loop until ``work`` is done (again if the app quits before), without
    the pass over Qt's events that qasync's ``run_until_complete`` makes after the
    loop has stopped running."""
    task = asyncio.ensure_future(work, loop=loop)
    task.add_done_callback(lambda _task: loop.stop())
    while not task.done():
        loop.run_forever()
    return task.result()


def _handle_end_signals(loop: asyncio.AbstractEventLoop,
                        on_signal: Callable[[], None]) -> list[int]:
    handled: list[int] = []
    for signum in END_SIGNALS:
        try:
            loop.add_signal_handler(signum, _ending, signum, on_signal)
        except (NotImplementedError, RuntimeError, ValueError):  # (not on this platform)
            continue
        handled.append(signum)
    return handled


def _ending(signum: int, on_signal: Callable[[], None]) -> None:
    log.info("%s received: quitting", signal.Signals(signum).name)
    on_signal()
