"""Running a subcommand's coroutine so that SIGTERM and SIGHUP stop it as Ctrl+C does.

``asyncio.run`` turns Ctrl+C into a cancellation of the main task: its clean-up runs
(an answer is stopped, and what was shown of it is saved, marked stopped), then
KeyboardInterrupt is raised. SIGTERM (``kill``, a service manager, a timeout) and
SIGHUP (the terminal closed) used to end the process where it stood: up to the last
second of an answer shown on the terminal was not saved. With
:func:`run_interruptible` they cancel the main task the same way, and
:class:`Interrupted` (a KeyboardInterrupt) says which signal it was; the exit status
is the shell's 128 + the signal's number (130 for Ctrl+C).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: What stops a command as Ctrl+C does (besides SIGINT, which asyncio.run handles).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    """The command was stopped by ``signum`` (its clean-up has run)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_status(interrupt: KeyboardInterrupt) -> int:
    """128 + the signal's number, as a shell reports a process it ended."""
    signum = interrupt.signum if isinstance(interrupt, Interrupted) else signal.SIGINT
    return 128 + int(signum)


def run_interruptible(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, where SIGTERM and SIGHUP cancel ``main`` like Ctrl+C;
    raises :class:`Interrupted` once ``main`` has finished its clean-up."""
    received: list[int] = []

    def noted(signum: int, _frame: object) -> None:
        if not received:
            received.append(signum)

    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def stop(signum: int) -> None:
            if not received:  # (a second signal does not cut the clean-up short)
                received.append(signum)
                task.cancel()

        handled: list[int] = []
        for stop_signal in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(stop_signal, stop, stop_signal)  # (not on Windows)
                handled.append(stop_signal)
        try:
            return await main
        finally:
            for handled_signal in handled:
                loop.remove_signal_handler(handled_signal)
                # Until the process ends, a signal is noted, not fatal: the command's
                # work is done (its answer saved) and it is ending. Back at the
                # default, one arriving in this last moment killed the process
                # mid-shutdown.
                with contextlib.suppress(ValueError, OSError):
                    signal.signal(handled_signal, noted)

    try:
        result = asyncio.run(guarded())
    except asyncio.CancelledError:
        if received:
            raise Interrupted(received[0]) from None
        raise
    if received:  # (the clean-up ended the task normally)
        raise Interrupted(received[0])
    return result
