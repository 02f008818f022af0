"""A research run: plan, rounds of searching and reading, then a cited report.

The model writes the plan (steps and first queries), says after each round what to
search next (or that it has enough), and writes the report from the numbered
findings; the searching and reading is done here (:mod:`.gather`). The limits
(:class:`~desktop.chat.research.progress.ResearchLimits`) are checked between
steps: at the round or time limit the report is written from what was found; at
the cost ceiling no more model requests are made and the report is made of the
findings themselves. Stopped (the Stop button, Ctrl+C), the run keeps what it found:
the report streamed so far, or the findings, with their sources. Qt-free.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import msgspec

from desktop.chat.research.gather import PAGE_CHARS, Gatherer
from desktop.chat.research.progress import Phase, ResearchLimits, ResearchProgress, StopReason
from desktop.chat.research.prompts import (
    Plan,
    cited,
    next_prompt,
    parse_plan,
    parse_queries,
    partial_report,
    plan_prompt,
    report_prompt,
    source_list,
    stop_note,
    unknown_citations,
)
from desktop.core.accumulator import MessageBuilder
from desktop.core.agent_events import (
    AgentEvent,
    AssistantFinished,
    AssistantStarted,
    RunFinished,
    RunStatus,
)
from desktop.core.error_codes import unexpected
from desktop.core.errors import AssistaError, ProviderError
from desktop.core.events import ErrorEvent, SourcesEvent, TextDelta, UsageEvent
from desktop.core.messages import Message, MessageStatus, Usage
from desktop.core.orchestrator import RunResult
from desktop.core.pricing import Price, cost_of
from desktop.core.provider import ChatRequest, Provider, RequestOrigin

if TYPE_CHECKING:
    from desktop.chat.events import ChatEvent
    from desktop.core.provider_options import RequestOptions

__all__ = ["ResearchRun", "ResearchSetup"]

log = logging.getLogger(__name__)


class ResearchSetup(msgspec.Struct, frozen=True):
    """What a run works with: its model, the chat's request options and system prompt
    (for the report), and the user's prices (for the cost)."""

    model: str
    request: RequestOptions
    system: str | None = None
    prices: Mapping[str, Price] | None = None
    session_id: str | None = None


class ResearchRun:
    def __init__(self, provider: Provider, setup: ResearchSetup, gatherer: Gatherer,
                 limits: ResearchLimits, *, tell: Callable[[ChatEvent], None],
                 sink: Callable[[AgentEvent], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``tell``: the chat's watchers (progress); ``sink``: where the report's
        events go (the recorder that saves it, which tells the watchers too)."""
        self.provider = provider
        self.setup = setup
        self.gatherer = gatherer
        self.limits = limits
        self.tell = tell
        self.sink = sink
        self.clock = clock
        self.usage = Usage()
        self.plan = Plan((), ())
        self.queries: list[str] = []
        self.round = 0
        self.stop: StopReason = ""
        self.messages: list[Message] = []
        self._started = clock()
        self._phase: Phase = "planning"

    # -- the run -------------------------------------------------------------------------

    async def run(self, question: str) -> RunResult:
        """The report as the run's one new message (:attr:`messages`). Stopped, it
        keeps what was found there, then raises CancelledError."""
        self._started = self.clock()
        builder: list[MessageBuilder] = []  # the report's, once it streams
        try:
            try:
                await self._research(question)
            except _CostReached:
                self.stop = "cost"
            if self._over_cost():
                self.stop = "cost"
            if self.stop == "cost":
                self._made_report(question, self._note())
            else:
                await self._write(question, builder)
            status: RunStatus = "complete"
            error, info = None, None
        except asyncio.CancelledError:  # what was found is kept, then the stop goes on
            self.stop = "stopped"
            self._keep_what_was_found(question, builder, "stopped", self._note())
            self._progress("done")
            self.sink(RunFinished(status="stopped", usage=self.usage))
            raise
        except Exception as exc:  # (a bug too: what was found is not lost)
            if isinstance(exc, AssistaError):
                error, info = str(exc), exc.info
            else:
                log.exception("research failed")
                error, info = unexpected(exc)
            self.stop, status = "failed", "error"
            self._keep_what_was_found(question, builder, "error",
                                      f"The research failed: {error}")
        self._progress("done")
        result = RunResult(status=status, new_messages=list(self.messages), usage=self.usage,
                           error=error, error_info=info)
        self.sink(RunFinished(status=result.status, usage=self.usage, error=error, info=info))
        return result

    async def _research(self, question: str) -> None:
        limits = self.limits
        self._progress("planning")
        self.plan = parse_plan(await self._ask(plan_prompt(question, limits.queries_per_round)),
                               question, limits.queries_per_round)
        queries = list(self.plan.queries)
        while True:
            self.round += 1
            await self._round(queries)
            self.stop = self._limit()
            if self.stop:
                return
            answer = await self._ask(next_prompt(question, self.plan, self.queries,
                                                 self.gatherer.findings,
                                                 limits.queries_per_round))
            queries = parse_queries(answer, self.queries, limits.queries_per_round)
            if not queries:
                self.stop = "done"
                return

    async def _round(self, queries: list[str]) -> None:
        """Search each query (web and knowledge), then read the best new pages."""
        hits = []
        for query in queries:
            if self._over_time():
                return
            self.queries.append(query)
            self._progress("searching")
            hits += await self.gatherer.search(query)
            await self.gatherer.search_knowledge(query)
        if self._over_time():
            return
        self._progress("reading")
        await self.gatherer.read(list({hit.url: hit for hit in hits}.values())
                                 [:self.limits.pages_per_round])
        self._progress("reading")

    # -- limits --------------------------------------------------------------------------

    def _elapsed(self) -> float:
        return max(0.0, self.clock() - self._started)

    def _over_time(self) -> bool:
        return self._elapsed() >= self.limits.max_seconds

    def _cost(self) -> float | None:
        return cost_of(self.setup.model, self.usage, self.setup.prices)

    def _over_cost(self) -> bool:
        cost, ceiling = self._cost(), self.limits.max_cost
        return cost is not None and ceiling is not None and cost >= ceiling

    def _limit(self) -> StopReason:
        if self._over_cost():
            return "cost"
        if self._over_time():
            return "time"
        if self.round >= self.limits.max_rounds:
            return "rounds"
        return ""

    def _note(self) -> str:
        return stop_note(self.stop, rounds=self.limits.max_rounds,
                         seconds=self.limits.max_seconds, cost=self.limits.max_cost)

    # -- the model -----------------------------------------------------------------------

    def _request(self, prompt: str, system: str | None, message_id: str | None = None
                 ) -> ChatRequest:
        request = ChatRequest(model=self.setup.model, messages=[Message.user(prompt)],
                              system=system,
                              origin=RequestOrigin(self.setup.session_id, message_id))
        self.setup.request.apply(request)
        return request

    async def _ask(self, prompt: str) -> str:
        """The model's answer to one of the run's own questions (not shown)."""
        if self._over_cost():
            self.stop = "cost"
            raise _CostReached
        parts: list[str] = []
        async with contextlib.aclosing(self.provider.stream(self._request(prompt, None))) \
                as stream:
            async for event in stream:
                if isinstance(event, TextDelta):
                    parts.append(event.text)
                elif isinstance(event, UsageEvent):
                    self._spent(event.usage)
                elif isinstance(event, ErrorEvent):
                    raise _failure(event)
        return "".join(parts)

    def _spent(self, usage: Usage) -> None:
        self.usage = self.usage + usage
        self._progress(None)

    async def _write(self, question: str, holder: list[MessageBuilder]) -> None:
        """The report, streamed to the chat as its answer, then its sources."""
        self._progress("writing")
        builder = self._start_message(holder)
        prompt = report_prompt(question, self.gatherer.findings,
                               max(500, PAGE_CHARS // max(1, len(self.gatherer.findings))
                                   * 2))
        request = self._request(prompt, self.setup.system, builder.id)
        async with contextlib.aclosing(self.provider.stream(request)) as stream:
            async for event in stream:
                if isinstance(event, ErrorEvent):
                    raise _failure(event)
                if isinstance(event, UsageEvent):
                    self._spent(event.usage)
                    continue
                if isinstance(event, TextDelta):
                    builder.feed(event)
                    self.sink(event)
        self._end_message(builder, "complete", self._note())

    # -- the answer ----------------------------------------------------------------------

    def _start_message(self, holder: list[MessageBuilder]) -> MessageBuilder:
        builder = MessageBuilder(model=self.setup.model, provider=self.provider.name)
        holder.append(builder)
        self.sink(AssistantStarted(message_id=builder.id, round=1, model=self.setup.model,
                                   snapshot=builder.snapshot))
        return builder

    def _end_message(self, builder: MessageBuilder, status: MessageStatus, note: str) -> None:
        findings = self.gatherer.findings
        text = builder.snapshot().text
        notes = [n for n in (note, unknown_citations(text, findings)) if n]
        tail = "".join(f"\n\n*{n}*" for n in notes) + source_list(cited(text, findings))
        for event in (TextDelta(tail), SourcesEvent([f.source() for f in findings])):
            builder.feed(event)
            self.sink(event)
        message = builder.finish(status, usage=self.usage)
        self.messages.append(message)
        self.sink(AssistantFinished(message))

    def _made_report(self, question: str, note: str,
                     status: MessageStatus = "complete") -> None:
        """The findings as the report (no model request)."""
        builder = self._start_message([])
        event = TextDelta(partial_report(question, self.gatherer.findings, note))
        builder.feed(event)
        self.sink(event)
        self._end_message(builder, status, "")

    def _keep_what_was_found(self, question: str, holder: list[MessageBuilder],
                             status: MessageStatus, note: str) -> None:
        if holder and not self.messages:  # the report was streaming: keep it
            self._end_message(holder[0], status, note)
        elif not self.messages:
            self._made_report(question, note, status)

    # -- progress ------------------------------------------------------------------------

    def _progress(self, phase: Phase | None) -> None:
        self._phase = phase or self._phase
        limits = self.limits
        self.tell(ResearchProgress(
            phase=self._phase, plan=self.plan.steps or self.plan.queries, round=self.round,
            max_rounds=limits.max_rounds, queries=tuple(self.queries),
            pages=tuple((f.title, f.where) for f in self.gatherer.findings),
            failed_pages=self.gatherer.failed_pages, elapsed_s=round(self._elapsed(), 1),
            max_seconds=limits.max_seconds, tokens=self.usage.total_tokens,
            cost=self._cost(), max_cost=limits.max_cost,
            stop=self.stop if self._phase == "done" else ""))


class _CostReached(AssistaError):
    """The cost ceiling was reached before a model request (the run writes its report
    from the findings)."""


def _failure(event: ErrorEvent) -> AssistaError:
    if event.info is not None:
        return AssistaError(event.message, code=event.info.code, params=event.info.params)
    return ProviderError(event.message, provider=event.provider, status=event.status,
                         server_code=event.code)
