"""A research turn on the chat service: checked before its chat is made (what it
searches: :meth:`ChatTools.research_gatherer`), run on the
chat's provider (through the per-provider limiter, like any turn), saved by the
turn's recorder, ended by the :class:`~desktop.chat.turn_runner.TurnRunner`.

:meth:`ChatService.start` with ``research=`` limits starts one (the window's
Research switch, ``assista ask --research``); :meth:`ChatTools.research_job
<desktop.chat.chat_tools.ChatTools.research_job>` makes the job, and with it loads
this module and the run's (they are not loaded with the chat service: only the
Research switch uses them).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

import msgspec

from desktop.chat.answer_figures import price_table
from desktop.chat.research.gather import Gatherer
from desktop.chat.research.progress import ResearchLimits
from desktop.chat.research.run import ResearchRun, ResearchSetup
from desktop.chat.turn_runner import tell_failure
from desktop.chat.turn_saving import finish_saving

if TYPE_CHECKING:
    from desktop.chat.running import RunningTurn
    from desktop.chat.turn_plan import TurnPlan
    from desktop.chat.turn_runner import TurnRunner
    from desktop.core.conversation import SessionRecorder

__all__ = ["ResearchJob", "run_research"]

log = logging.getLogger(__name__)


class ResearchJob(msgspec.Struct, frozen=True):
    """A research turn to run: its limits, what it searches, and the question."""

    limits: ResearchLimits
    gatherer: Gatherer
    question: str

    async def run(self, runner: TurnRunner, turn: RunningTurn, plan: TurnPlan,
                  recorder: SessionRecorder | None) -> None:
        """:func:`run_research` this job for ``turn``."""
        await run_research(runner, turn, plan, self, recorder)


async def run_research(runner: TurnRunner, turn: RunningTurn, plan: TurnPlan,
                       job: ResearchJob, recorder: SessionRecorder | None) -> None:
    """Run ``job`` for ``turn`` to its end (its report appended to ``turn.history``);
    never raises but when stopped again while its last saves finish."""
    provider = runner.provider(turn, plan)
    setup = ResearchSetup(model=plan.model, request=plan.request, system=plan.system,
                          prices=price_table(runner.settings.current.prices),
                          session_id=turn.session_id)
    research = ResearchRun(provider, setup, job.gatherer, job.limits, tell=turn.emit,
                           sink=recorder or turn.emit, clock=job.limits.clock)
    try:
        turn.result = await research.run(job.question)
        if turn.result.status == "error":
            turn.failure, turn.failure_info = turn.result.error, turn.result.error_info
    except asyncio.CancelledError:  # (turn.result stays None: the turn was stopped)
        log.info("research in %s stopped", turn.session_id)
    finally:
        turn.history.extend(research.messages)
        if turn.failure is not None:
            tell_failure(turn)
        if recorder is not None:
            await finish_saving(turn, recorder)
        with contextlib.suppress(Exception):
            await provider.aclose()
