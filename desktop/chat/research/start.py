"""A research turn on the chat service: checked before its chat is made, run on the
chat's provider (through the per-provider limiter, like any turn), saved by the
turn's recorder, ended by the :class:`~desktop.chat.turn_runner.TurnRunner`.

:meth:`ChatService.start` with ``research=`` limits starts one (the window's
Research switch, ``assista ask --research``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from desktop.chat.answer_figures import price_table
from desktop.chat.research.gather import Gatherer
from desktop.chat.research.progress import ResearchLimits
from desktop.chat.research.run import ResearchRun, ResearchSetup
from desktop.chat.web_search import web_search_config
from desktop.core.errors import ConfigError
from desktop.tools.trust import ToolTrust

if TYPE_CHECKING:
    from desktop.app import AppContext
    from desktop.chat.running import RunningTurn
    from desktop.chat.turn_plan import TurnPlan
    from desktop.chat.turn_runner import TurnRunner
    from desktop.core.conversation import SessionRecorder

__all__ = ["RESEARCH_KEY", "ResearchJob", "prepare_research", "run_research"]

log = logging.getLogger(__name__)

#: ``provider_data`` key of a user message that asked for research.
RESEARCH_KEY = "research"


@dataclass(frozen=True, slots=True)
class ResearchJob:
    limits: ResearchLimits
    gatherer: Gatherer
    question: str


def prepare_research(ctx: AppContext, plan: TurnPlan, limits: ResearchLimits,
                     question: str) -> ResearchJob:
    """What the run searches (the search service of Settings, the chat's knowledge
    bases); ConfigError with what to do when it has neither, or the service cannot
    search."""
    settings = ctx.settings.current
    web = web_search_config(ctx, settings)
    if web is not None and (problem := web.problem()) is not None:
        raise ConfigError(problem)
    knowledge = None
    if plan.knowledge:
        from desktop.knowledge.chat_link import provider_key
        from desktop.knowledge.tool import search_knowledge_tool

        knowledge = search_knowledge_tool(ctx.db, plan.knowledge, partial(provider_key, ctx),
                                          ctx.proxy)
    if web is None and knowledge is None:
        raise ConfigError("Research needs something to search: choose a search service "
                          "(SearXNG, Brave or Tavily) in Settings, or add a knowledge base "
                          "to the chat.", code="research_no_search")
    trust = ToolTrust.from_settings(settings, hidden_paths=(str(ctx.paths.root),))
    return ResearchJob(limits, Gatherer(web, knowledge, proxy=ctx.proxy, trust=trust),
                       question)


async def run_research(runner: TurnRunner, turn: RunningTurn, plan: TurnPlan,
                       job: ResearchJob, recorder: SessionRecorder | None) -> None:
    """Run ``job`` for ``turn`` to its end (its report appended to ``turn.history``);
    never raises but when stopped again while its last saves finish."""
    from desktop.chat.turn_runner import tell_failure
    from desktop.chat.turn_saving import finish_saving

    provider = runner.provider(turn, plan)
    setup = ResearchSetup(model=plan.model, request=plan.request, system=plan.system,
                          prices=price_table(runner.ctx.settings.current.prices),
                          session_id=turn.session_id)
    research = ResearchRun(provider, setup, job.gatherer, job.limits, tell=turn.emit,
                           sink=recorder or turn.emit, clock=job.limits.clock)
    try:
        turn.result = await research.run(job.question)
        if turn.result.status == "error":
            turn.failure = turn.result.error
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
