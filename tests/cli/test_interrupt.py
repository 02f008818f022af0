"""The command line's signals: SIGTERM and SIGHUP stop a command as Ctrl+C does, and one
that arrives while the finished command is ending does not kill it mid-shutdown (at
the default disposition it ended `assista ask` with -15 after its answer was saved:
tests/cli/test_ask_lifecycle.py failed about 1 run in 20 under load)."""

from __future__ import annotations

import os
import signal

import pytest

from desktop.cli.interrupt import Interrupted, run_interruptible


@pytest.fixture
def keep_sigterm() -> object:
    before = signal.getsignal(signal.SIGTERM)
    yield before
    signal.signal(signal.SIGTERM, before)


def test_a_signal_once_the_command_has_finished_is_noted_not_fatal(
        keep_sigterm: object) -> None:
    async def finished() -> str:
        return "saved"

    assert run_interruptible(finished()) == "saved"
    assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None)
    os.kill(os.getpid(), signal.SIGTERM)  # (the process ending: it lives on to its end)


def test_a_signal_while_the_command_runs_stops_it_like_ctrl_c(keep_sigterm: object) -> None:
    import asyncio

    async def running() -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(30)

    with pytest.raises(Interrupted) as stopped:
        run_interruptible(running())
    assert stopped.value.signum == signal.SIGTERM
