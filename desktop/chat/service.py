"""The chat service: runs the turns of any number of chats, each on its own.

The window and ``assista ask`` both start turns here; a turn belongs to its chat,
not to whoever started it, so switching chats, opening a new one or closing a view
never stops an answer. Observers (:meth:`ChatService.observe`) watch one chat and
may come and go while it runs; a chat nobody watches still streams, saves and
finishes, and is then marked unread. Qt-free.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from desktop.chat.approvals import ApprovalBoard, PendingApproval
from desktop.chat.chat_settings import ChatSettings
from desktop.chat.chat_states import ChatStates, StateObserver
from desktop.chat.chat_tools import ChatTools
from desktop.chat.events import (
    ChatObserver,
    ChatState,
    ProviderRetrying,
    TurnEnded,
    TurnFailed,
    TurnQueued,
)
from desktop.chat.generation_stats import GenerationMeter
from desktop.chat.limiter import ProviderLimiter
from desktop.chat.memory_turns import memory_saver, turn_system
from desktop.chat.message_edits import CONTINUATION_KEY, CONTINUE_PROMPT, MessageEdits
from desktop.chat.profile import ChatProfiles, ChatRef, NewChat
from desktop.chat.running import RunningTurn
from desktop.chat.titling import ChatTitler
from desktop.chat.turn_locks import TurnLocks
from desktop.chat.turn_plan import TurnOverrides, TurnPlan, plan_turn
from desktop.chat.turn_saving import finish_saving
from desktop.chat.use_board import BOARD, UseBoard
from desktop.core.conversation import SessionRecorder, auto_title
from desktop.core.error_codes import unexpected
from desktop.core.errors import AssistaError, ConfigError
from desktop.core.messages import Message, Part, TextPart
from desktop.storage.memories import MemoryStore

if TYPE_CHECKING:
    from desktop.app import AppContext
    from desktop.core.orchestrator import ConfirmContinue
    from desktop.core.settings import AppSettings
    from desktop.storage.branches import ActiveBranch
    from desktop.tools.approval import ApprovalDecision, ApprovalRequest, Approver

log = logging.getLogger(__name__)


class ChatService:
    def __init__(self, ctx: AppContext, *, write_titles: bool = False) -> None:
        """``write_titles``: ask the model for each new chat's title (the window)."""
        self.ctx = ctx
        self.titles = ChatTitler(ctx, lambda _sid, _title: self._sessions_changed(),
                                 enabled=write_titles)
        self.profiles = ChatProfiles(ctx)
        self.tools = ChatTools(ctx)
        self.chats = ChatSettings(self.profiles, self.tools)
        self.approvals = ApprovalBoard()
        self.edits = MessageEdits(ctx.sessions)
        self.memories = MemoryStore(ctx.db)  # facts kept across chats
        self.limiter = ProviderLimiter(self._slot_limit)
        self._running: dict[str, RunningTurn] = {}
        self.locks = TurnLocks(ctx.paths.root)  # a chat answers in one process at a time
        self._observers: dict[str, list[ChatObserver]] = {}
        self.chat_states = ChatStates()
        self.on_state: list[StateObserver] = self.chat_states.observers
        self.on_sessions_changed: list[Callable[[], None]] = []
        self.approvals.on_request.append(self._approval_opened)
        ctx.settings.subscribe(self._settings_changed)
        self.approvals.on_close.append(self._approval_closed)
        from desktop.chat.compare import CompareRunner  # (which imports this module)
        self.compare = CompareRunner(self)  # one question to several models at once

    def _settings_changed(self, old: AppSettings, new: AppSettings) -> None:
        if old.max_concurrent_requests != new.max_concurrent_requests:
            self.limiter.reset()  # new slots with the new limit for the next requests

    def _slot_limit(self) -> int:
        return self.ctx.settings.current.max_concurrent_requests

    # -- watching chats ------------------------------------------------------------

    def observe(self, session_id: str, observer: ChatObserver) -> Callable[[], None]:
        """Watch a chat: first everything its running turn streamed so far, then live.
        Looking at a chat marks it read (a failed one stays failed until its next turn).
        Returns the function that stops watching."""
        self._observers.setdefault(session_id, []).append(observer)
        running = self._running.get(session_id)
        if running is not None:
            running.observers.append(observer)
            running.replay(observer)
        elif self.chat_states.get(session_id) == "unread":  # ("failed" stays: it is not
            self.chat_states.set(session_id, "idle")       # mended by looking at it)

        def unobserve() -> None:
            watchers = self._observers.get(session_id, [])
            if observer in watchers:
                watchers.remove(observer)
            turn = self._running.get(session_id)
            if turn is not None and observer in turn.observers:
                turn.observers.remove(observer)

        return unobserve

    def state(self, session_id: str) -> ChatState:
        return self.chat_states.get(session_id)

    def states(self) -> dict[str, ChatState]:
        return self.chat_states.all()

    def running(self, session_id: str | None) -> RunningTurn | None:
        return self._running.get(session_id) if session_id else None

    def running_ids(self) -> list[str]:
        return list(self._running)

    # -- turns -------------------------------------------------------------------------

    def plan(self, chat: ChatRef, attachments: Sequence[Part] = (),
             overrides: TurnOverrides | None = None, question: str = "") -> TurnPlan:
        """``question``: what the user asks (the memories most relevant to it are sent)."""
        return plan_turn(self.profiles, self.tools, self.ctx.settings.current, chat,
                         attachments, overrides=overrides, question=question)

    def start(self, chat: ChatRef, text: str, attachments: Sequence[Part] = (), *,
              branch_from: str | None = None, regenerate: bool = False,
              overrides: TurnOverrides | None = None,
              approver: Approver | UseBoard | None = BOARD,
              confirm: ConfirmContinue | UseBoard | None = BOARD, save: bool = True,
              continuation: bool = False) -> RunningTurn:
        """Start a turn of ``chat`` (a new chat is created first) and return it at
        once; raises ConfigError (a sentence for the user) when it cannot start.

        ``regenerate``: answer again from before assistant message ``branch_from``;
        with ``branch_from`` alone, ``text`` is a new version of that user message.
        ``approver``/``confirm``: the CLI's own; by default approvals go on
        :attr:`approvals` and "Continue?" to the chat's observers.
        ``save=False``: nothing is stored (``assista ask --no-save``).
        ``continuation``: ``text`` asks to continue the last answer (shown as such)."""
        if not (text.strip() or attachments or regenerate):
            raise ConfigError("the message is empty")
        temporary = isinstance(chat, NewChat) and chat.temporary
        if temporary:
            save = False  # a temporary chat is never stored
        plan = self.plan(chat, attachments, overrides, question=text)
        user: Message | None = None
        if not regenerate:
            user = Message(role="user", parts=[TextPart(text=text), *attachments],
                           provider_data={CONTINUATION_KEY: True} if continuation else {})
        if isinstance(chat, NewChat) and temporary:
            if chat.temporary_id in self._running:
                raise ConfigError("This chat is still answering; stop it first.",
                                  code="still_answering")
            # (its own list: the loop appends each finished message to it)
            session_id, history = chat.temporary_id, chat.history
        else:
            session_id, history = self._open_chat(chat, plan, text, attachments,
                                                  branch_from) \
                if save else (f"unsaved-{id(user)}", [])
        info = self.ctx.sessions.get_session(session_id) if save else None
        turn = RunningTurn(session_id, info.title if info else "", [], history,
                           model=plan.model)
        turn.base = [*history, *([user] if user is not None else [])]
        turn.observers = list(self._observers.get(session_id, []))
        self._running[session_id] = turn
        self.chat_states.set(session_id, "answering")
        try:
            orchestrator = self._build(turn, plan, overrides, approver, confirm)
        except BaseException:
            self._running.pop(session_id, None)
            self.locks.release(session_id)
            self.chat_states.set(session_id, "idle")
            raise
        turn.task = asyncio.ensure_future(self._run(turn, orchestrator, plan, user, save))
        if save and branch_from is None and not (regenerate or continuation):
            self.chats.set_draft(chat, "")  # the draft was this message
        return turn

    def _open_chat(self, chat: ChatRef, plan: TurnPlan, text: str, attachments: Sequence[Part],
                   branch_from: str | None) -> tuple[str, list[Message]]:
        """The chat's id (a new chat is created) and what its turn starts from, with its
        lock held: a chat answers in one process at a time (:mod:`.turn_locks`)."""
        sid = chat if isinstance(chat, str) else None
        if sid is not None and sid in self._running:
            raise ConfigError("This chat is still answering; stop it first.",
                              code="still_answering")
        try:
            if sid is not None:
                self.locks.claim(sid)  # (before anything in it changes)
            sid = self._ensure_chat(chat, plan, text, attachments)
            self.locks.claim(sid)
            sessions = self.ctx.sessions
            return sid, (sessions.start_branch(sid, branch_from) if branch_from is not None
                         else list(sessions.load_active_branch(sid).messages))
        except BaseException:
            if sid is not None:
                self.locks.release(sid)
            raise

    def _ensure_chat(self, chat: ChatRef, plan: TurnPlan, text: str,
                     attachments: Sequence[Part]) -> str:
        if isinstance(chat, str):
            if self.ctx.sessions.get_session(chat) is None:
                raise ConfigError(f"no chat with id {chat!r}")
            self.ctx.sessions.update_session(chat, provider_id=plan.config.id,
                                             model=plan.model)
            return chat
        names = [getattr(p, "name", None) or "attachment" for p in attachments]
        info = self.ctx.sessions.create_session(
            title=auto_title(text or " ".join(names)), provider_id=plan.config.id,
            model=plan.model, workspace=plan.workspace, system_prompt=chat.system_prompt,
            assistant_id=chat.assistant_id, extra=self.profiles.saved_extra(chat))
        self.titles.chat_created(info.id, info.title, plan.config, plan.model,
                                 text or " ".join(names))
        self.tools.move_grants(chat.grant_key, info.id)
        self._sessions_changed()
        return info.id

    def _build(self, turn: RunningTurn, plan: TurnPlan, overrides: TurnOverrides | None,
               approver: Approver | UseBoard | None,
               confirm: ConfirmContinue | UseBoard | None) -> Orchestrator:
        settings = self.ctx.settings.current
        sid = turn.session_id
        raw = self.ctx.build_provider(plan.config, on_retry=partial(self._retrying, turn,
                                                                      plan.config.name))
        turn.retry_limit = int(getattr(getattr(raw, "retry", None), "max_retries", 0))
        provider = self.limiter.wrap(raw, plan.config.id, on_wait=partial(self._queued, turn))
        turn.tools = self.tools.runner(
            list(plan.tools), workspace=plan.workspace, settings=settings,
            approver=partial(self._ask, turn) if isinstance(approver, UseBoard) else approver,
            grants=self.tools.chat_grants(sid), on_progress=turn.emit,
            extra_policies=overrides.policies if overrides is not None else None,
            knowledge=plan.knowledge, checkpoint=self.tools.checkpoint(sid, turn.base),
            remember=memory_saver(self.memories, turn, plan))
        orchestrator = self.ctx.build_orchestrator(
            provider, turn.tools, settings,
            partial(self._confirm, turn) if isinstance(confirm, UseBoard) else confirm,
            config=plan.config, model=plan.model)
        # The chat's own options over the provider's defaults, by the loop's one route.
        orchestrator.request_options = plan.request
        return orchestrator

    async def _run(self, turn: RunningTurn, orchestrator: Orchestrator, plan: TurnPlan,
                   user: Message | None, save: bool) -> None:
        # MCP servers that ask (sampling, elicitation) during this turn ask for this chat.
        from desktop.core.exchange_origin import set_session
        from desktop.tools.mcp.origin import request_origin

        request_origin.set(turn.session_id)
        set_session(turn.session_id)  # what the request inspector records belongs to it
        recorder = SessionRecorder(self.ctx.sessions, turn.session_id, turn.emit) if save \
            else None
        try:
            if user is not None:
                turn.history.append(user)
                if recorder is not None:  # saved off the loop, before the answer
                    recorder.queue.put(user)
            system = await turn_system(plan, self.memories)  # (many memories: by vectors)
            # The meter goes first: the recorder saves the answer with its stats.
            meter = GenerationMeter(recorder or turn.emit, turn.history, system)
            turn.result = await orchestrator.run(
                turn.history, model=plan.model, system=system, sink=meter,
                temperature=plan.temperature)
            turn.result.new_messages = meter.patch(turn.result.new_messages)
        except asyncio.CancelledError:
            log.info("turn of %s stopped", turn.session_id)
        except AssistaError as exc:
            turn.failure, turn.failure_info = str(exc), exc.info
            turn.emit(TurnFailed(str(exc), exc.info))
        except Exception as exc:
            log.exception("turn failed")
            turn.failure, turn.failure_info = unexpected(exc)
            turn.emit(TurnFailed(turn.failure, turn.failure_info))
        finally:
            try:
                if recorder is not None:
                    await finish_saving(turn, recorder)
                with contextlib.suppress(Exception):
                    await orchestrator.provider.aclose()
            finally:  # (also when stopped again meanwhile: the chat must not stay busy)
                self._finish(turn)

    def _finish(self, turn: RunningTurn) -> None:
        sid = turn.session_id
        self._running.pop(sid, None)
        self.locks.release(sid)
        status = "stopped" if turn.result is None and turn.failure is None else (
            "failed" if turn.result is None else turn.result.status)
        failed = turn.failure is not None or status == "error"
        if sid.startswith("unsaved-"):
            state: ChatState = "idle"
        elif failed:  # (watched or not: the chat list marks it until it answers)
            state = "failed"
        else:
            state = "idle" if self._observers.get(sid) else "unread"
        self.chat_states.set(sid, state)
        turn.emit(TurnEnded(sid, status))
        self._sessions_changed()
        self.titles.turn_ended(sid, status, turn.history)

    # -- callbacks from a running turn -------------------------------------------------

    def _retrying(self, turn: RunningTurn, name: str, attempt: int, delay_s: float,
                  reason: str) -> None:
        turn.emit(ProviderRetrying(name, attempt, delay_s, reason, turn.retry_limit))

    def _queued(self, turn: RunningTurn, waiting: bool) -> None:
        self.chat_states.set(turn.session_id, "queued" if waiting else "answering")
        turn.emit(TurnQueued(waiting))

    async def _ask(self, turn: RunningTurn, request: ApprovalRequest) -> ApprovalDecision:
        return await self.approvals.ask(request, turn.session_id, turn.title)

    async def _confirm(self, turn: RunningTurn, rounds: int) -> bool:
        self.chat_states.set(turn.session_id, "approval")
        try:
            return await turn.ask_confirm(rounds)
        finally:
            if turn.session_id in self._running:
                self.chat_states.set(turn.session_id, "answering")

    def _approval_opened(self, pending: PendingApproval) -> None:
        if pending.session_id in self._running:
            self.chat_states.set(pending.session_id, "approval")

    def _approval_closed(self, _call_id: str) -> None:
        for sid, turn in self._running.items():
            if self.chat_states.get(sid) == "approval" and not turn.confirm_pending and \
                    not self.approvals.for_chat(sid):
                self.chat_states.set(sid, "answering")

    # -- stopping ------------------------------------------------------------------------

    def stop(self, session_id: str | None) -> None:
        """Stop a chat's answer; what streamed is kept, marked stopped."""
        turn = self._running.get(session_id) if session_id else None
        if turn is None:
            return
        self.approvals.deny_chat(turn.session_id, "The user stopped the answer.")
        turn.cancel()

    def stop_all(self) -> None:
        for session_id in list(self._running):
            self.stop(session_id)

    def answer_confirm(self, session_id: str, proceed: bool) -> None:
        turn = self._running.get(session_id)
        if turn is not None:
            turn.answer_confirm(proceed)

    def cancel_tool(self, session_id: str | None, call_id: str) -> bool:
        turn = self.running(session_id)
        cancel = getattr(turn.tools, "cancel", None) if turn is not None else None
        return bool(cancel(call_id)) if cancel is not None else False

    async def wait(self, session_id: str) -> None:
        turn = self._running.get(session_id)
        if turn is not None and turn.task is not None:
            await asyncio.gather(turn.task, return_exceptions=True)

    async def wait_idle(self) -> None:
        while self._running:
            tasks = [t.task for t in self._running.values() if t.task is not None]
            await asyncio.gather(*tasks, return_exceptions=True)

    async def shutdown(self) -> None:
        """Stop every answer (saved as stopped), then the MCP servers."""
        self.titles.cancel()  # a title is not worth waiting for at exit
        self.stop_all()
        await self.wait_idle()
        await self.tools.stop_mcp()

    # -- chats -----------------------------------------------------------------------------

    def delete_chat(self, session_id: str) -> None:
        self.stop(session_id)
        self.ctx.sessions.delete_session(session_id)
        self.chats.drafts.forget(session_id)
        self.chat_states.forget(session_id)
        self._sessions_changed()

    def delete_message(self, session_id: str, message_id: str) -> ActiveBranch:
        """Delete a message and what follows it (not while the chat answers)."""
        if session_id in self._running:
            raise ConfigError("This chat is still answering; stop it first.",
                              code="still_answering")
        branch = self.edits.delete_from(session_id, message_id)
        self._sessions_changed()
        return branch

    def fork_chat(self, session_id: str, up_to: str) -> str:
        """A new chat with this chat's shown branch down to ``up_to``; its id."""
        new_id = self.edits.fork(session_id, up_to)
        self._sessions_changed()
        return new_id

    def continue_answer(self, session_id: str) -> RunningTurn:
        """Ask the model to go on from where the chat's last answer stopped."""
        return self.start(session_id, CONTINUE_PROMPT, continuation=True)

    def rename_chat(self, session_id: str, title: str) -> None:
        title = title.strip() or "New chat"
        self.ctx.sessions.rename_session(session_id, title)
        if (turn := self._running.get(session_id)) is not None:
            turn.title = title
        self._sessions_changed()

    def _sessions_changed(self) -> None:
        for callback in list(self.on_sessions_changed):
            try:
                callback()
            except Exception:
                log.exception("a chat-list observer failed")


if TYPE_CHECKING:
    from desktop.core.orchestrator import Orchestrator
