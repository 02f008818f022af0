"""The one place a turn is built, run and ended, whoever starts it.

:class:`TurnRunner` holds the running turns (one per chat), who watches each chat,
and what each chat is doing (:class:`~desktop.chat.chat_states.ChatStates`). It
builds a turn's loop from its plan (the provider behind the per-provider limiter,
the chat's tools with their approvals, the "Continue?" question), runs it with the
recorder that saves it as it streams, and ends it with the same bookkeeping for
everyone: :class:`~desktop.chat.service.ChatService` for a chat's turn, the compare
runner (:mod:`desktop.chat.compare`) for each column and for the run as a whole.
Qt-free.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import msgspec

from desktop.chat.chat_states import ChatStates
from desktop.chat.events import (
    ChatObserver,
    ChatState,
    ProviderRetrying,
    TurnEnded,
    TurnFailed,
    TurnQueued,
)
from desktop.chat.generation_stats import GenerationMeter
from desktop.chat.memory_turns import memory_saver, turn_system
from desktop.chat.running import RunningTurn
from desktop.chat.turn_saving import finish_saving
from desktop.chat.use_board import UseBoard
from desktop.core.error_codes import unexpected
from desktop.core.errors import AssistaError, ConfigError
from desktop.providers.stream_pace import StreamPace

if TYPE_CHECKING:
    from desktop.chat.app_context import BuildOrchestrator, BuildProvider
    from desktop.chat.approvals import ApprovalBoard
    from desktop.chat.chat_tools import ChatTools
    from desktop.chat.limiter import ProviderLimiter
    from desktop.chat.turn_locks import TurnLocks
    from desktop.chat.turn_plan import TurnOverrides, TurnPlan
    from desktop.core.conversation import SessionRecorder
    from desktop.core.orchestrator import ConfirmContinue, Orchestrator
    from desktop.core.provider import Provider
    from desktop.core.services import SettingsSource
    from desktop.storage.memories import MemoryStore
    from desktop.tools.approval import ApprovalDecision, ApprovalRequest, Approver

__all__ = ["TurnJob", "TurnRunner", "tell_failure"]

log = logging.getLogger(__name__)

#: Told when a turn has ended: the turn and how (``TurnEnded.status``).
EndObserver = Callable[[RunningTurn, str], None]


class TurnJob(msgspec.Struct, frozen=True):
    """A turn's loop, built, and the plan it runs."""

    orchestrator: Orchestrator
    plan: TurnPlan


class TurnRunner:
    def __init__(self, tools: ChatTools, approvals: ApprovalBoard, limiter: ProviderLimiter,
                 locks: TurnLocks, settings: SettingsSource, *,
                 build_provider: BuildProvider, build_orchestrator: BuildOrchestrator,
                 memories: MemoryStore | None = None) -> None:
        """``build_provider``/``build_orchestrator``: a turn's provider and loop, as the
        app builds them."""
        self.settings = settings
        self._build_provider = build_provider
        self._build_orchestrator = build_orchestrator
        # Facts kept across chats: a turn's system prompt carries the relevant ones,
        # its ``remember`` tool saves here (None: the turns use no memory).
        self.memories = memories
        self.tools = tools
        self.approvals = approvals
        self.limiter = limiter
        self.locks = locks
        self.states = ChatStates()
        self.on_ended: list[EndObserver] = []
        self._running: dict[str, RunningTurn] = {}
        self._watchers: dict[str, list[ChatObserver]] = {}

    # -- watching chats ------------------------------------------------------------

    def observe(self, session_id: str, observer: ChatObserver) -> Callable[[], None]:
        """Watch a chat: first everything its running turn streamed so far, then live.
        Looking at a chat marks it read (a failed one stays failed until its next turn).
        Returns the function that stops watching."""
        self._watchers.setdefault(session_id, []).append(observer)
        running = self._running.get(session_id)
        if running is not None:
            running.observers.append(observer)
            running.replay(observer)
        elif self.states.get(session_id) == "unread":  # ("failed" stays: it is not
            self.states.set(session_id, "idle")       # mended by looking at it)

        def unobserve() -> None:
            watchers = self._watchers.get(session_id, [])
            if observer in watchers:
                watchers.remove(observer)
            turn = self._running.get(session_id)
            if turn is not None and observer in turn.observers:
                turn.observers.remove(observer)

        return unobserve

    def watchers(self, session_id: str) -> list[ChatObserver]:
        """Who watches the chat now (a copy)."""
        return list(self._watchers.get(session_id, []))

    def running(self, session_id: str | None) -> RunningTurn | None:
        return self._running.get(session_id) if session_id else None

    def running_ids(self) -> list[str]:
        return list(self._running)

    def turns(self) -> list[RunningTurn]:
        return list(self._running.values())

    def check_idle(self, session_id: str) -> None:
        """ConfigError when the chat is answering (here: another process has its lock)."""
        if session_id in self._running:
            raise ConfigError("This chat is still answering; stop it first.",
                              code="still_answering")

    # -- a turn's life -------------------------------------------------------------------

    def begin(self, turn: RunningTurn) -> None:
        """``turn`` is the chat's running turn from now on; its watchers watch it."""
        turn.observers = [*self.watchers(turn.session_id), *turn.observers]
        self._running[turn.session_id] = turn
        self.states.set(turn.session_id, "answering")

    def abandon(self, turn: RunningTurn) -> None:
        """``turn`` could not start: the chat is idle again, its lock released."""
        if self._running.get(turn.session_id) is turn:
            del self._running[turn.session_id]
        self.locks.release(turn.session_id)
        self.states.set(turn.session_id, "idle")

    def build(self, turn: RunningTurn, plan: TurnPlan, overrides: TurnOverrides | None,
              approver: Approver | UseBoard | None,
              confirm: ConfirmContinue | UseBoard | None) -> TurnJob:
        """The loop of ``turn``; ``UseBoard``: approvals on the board, "Continue?" asked
        of the chat's watchers. Raises ConfigError when it cannot be built."""
        settings = self.settings.current
        sid = turn.session_id
        provider = self.provider(turn, plan)
        turn.tools = self.tools.runner(
            list(plan.tools), workspace=plan.workspace, settings=settings,
            approver=partial(self._ask, turn) if isinstance(approver, UseBoard) else approver,
            grants=self.tools.chat_grants(sid), on_progress=turn.emit,
            extra_policies=overrides.policies if overrides is not None else None,
            knowledge=plan.knowledge, skills=plan.skills,
            checkpoint=self.tools.checkpoint(sid, turn.base),
            origin=sid, remember=(memory_saver(self.memories, turn, plan)
                                  if self.memories is not None else None))
        orchestrator = self._build_orchestrator(
            provider, turn.tools, settings,
            partial(self._confirm, turn) if isinstance(confirm, UseBoard) else confirm,
            config=plan.config, model=plan.model)
        # The chat's own options over the provider's defaults, by the loop's one route.
        orchestrator.request_options = plan.request
        return TurnJob(orchestrator, plan)

    def provider(self, turn: RunningTurn, plan: TurnPlan) -> Provider:
        """The provider of ``plan`` for ``turn``: its retries told to the turn's
        watchers, its requests behind the provider's slots."""
        # (its answer at a watched stream's pace while the chat has observers: the
        # window showing it, ``assista ask`` printing it; else at a background one)
        pace = StreamPace(lambda: bool(turn.observers))
        on_retry = partial(self._retrying, turn, plan.config.name)
        raw = self._build_provider(plan.config, on_retry=on_retry, pace=pace)
        turn.retry_limit = int(getattr(getattr(raw, "retry", None), "max_retries", 0))
        return self.limiter.wrap(raw, plan.config.id, on_wait=partial(self._queued, turn))

    async def execute(self, turn: RunningTurn, job: TurnJob | None,
                      recorder: SessionRecorder | None, *,
                      failed: Callable[[RunningTurn], None] | None = None) -> None:
        """Run ``job`` on ``turn.history`` to its end; never raises but when stopped
        again while its last saves finish. A failure is kept on the turn
        (``failure``, ``failure_info``) and told by ``failed`` (default: TurnFailed to
        its watchers) before the last saves; ``job=None``: the turn failed already.
        Then the provider is closed; :meth:`finish` is the caller's."""
        try:
            if job is not None:
                plan = job.plan
                system = plan.system  # (many memories: ranked again by vectors)
                if self.memories is not None:
                    system = await turn_system(plan, self.memories)
                # The meter goes first: the recorder saves the answer with its stats.
                meter = GenerationMeter(recorder or turn.emit, turn.history, system)
                turn.result = await job.orchestrator.run(
                    turn.history, model=plan.model, system=system, sink=meter,
                    temperature=plan.temperature, session_id=turn.session_id)
                turn.result.new_messages = meter.patch(turn.result.new_messages)
        except asyncio.CancelledError:
            log.info("turn of %s (%s) stopped", turn.session_id, turn.model)
        except AssistaError as exc:
            turn.failure, turn.failure_info = str(exc), exc.info
        except Exception as exc:
            log.exception("turn failed")
            turn.failure, turn.failure_info = unexpected(exc)
        finally:
            if turn.failure is not None:
                (failed or tell_failure)(turn)
            if recorder is not None:
                await finish_saving(turn, recorder)
            if job is not None:
                with contextlib.suppress(Exception):
                    await job.orchestrator.provider.aclose()

    def finish(self, turn: RunningTurn) -> None:
        """``turn`` ended (answered, stopped or failed, and saved): the chat is free
        again, marked unread when nobody watched it, and everyone is told."""
        sid = turn.session_id
        if self._running.get(sid) is turn:
            del self._running[sid]
        self.locks.release(sid)
        status = "stopped" if turn.result is None and turn.failure is None else (
            "failed" if turn.result is None else turn.result.status)
        failed = turn.failure is not None or status == "error"
        if sid.startswith("unsaved-"):
            state: ChatState = "idle"
        elif failed:  # (watched or not: the chat list marks it until it answers)
            state = "failed"
        else:
            state = "idle" if self._watchers.get(sid) else "unread"
        self.states.set(sid, state)
        turn.emit(TurnEnded(sid, status))
        for callback in list(self.on_ended):
            try:
                callback(turn, status)
            except Exception:
                log.exception("an end-of-turn observer failed")

    # -- callbacks from a running turn -------------------------------------------------

    def _retrying(self, turn: RunningTurn, name: str, attempt: int, delay_s: float,
                  reason: str) -> None:
        turn.emit(ProviderRetrying(name, attempt, delay_s, reason, turn.retry_limit))

    def _queued(self, turn: RunningTurn, waiting: bool) -> None:
        self.states.set(turn.session_id, "queued" if waiting else "answering")
        turn.emit(TurnQueued(waiting))

    async def _ask(self, turn: RunningTurn, request: ApprovalRequest) -> ApprovalDecision:
        return await self.approvals.ask(request, turn.session_id, turn.title)

    async def _confirm(self, turn: RunningTurn, rounds: int) -> bool:
        self.states.set(turn.session_id, "approval")
        try:
            return await turn.ask_confirm(rounds)
        finally:
            if turn.session_id in self._running:
                self.states.set(turn.session_id, "answering")


def tell_failure(turn: RunningTurn) -> None:
    turn.emit(TurnFailed(turn.failure or "", turn.failure_info))
