"""The chat service: runs the turns of any number of chats, each on its own.

The window and ``assista ask`` both start turns here; a turn belongs to its chat,
not to whoever started it, so switching chats, opening a new one or closing a view
never stops an answer. Observers (:meth:`ChatService.observe`) watch one chat and
may come and go while it runs; a chat nobody watches still streams, saves and
finishes, and is then marked unread. Qt-free.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from desktop import chat as chat_features
from desktop.chat.approvals import ApprovalBoard, PendingApproval
from desktop.chat.chat_settings import ChatSettings
from desktop.chat.chat_states import ChatStates, StateObserver
from desktop.chat.chat_tools import ChatTools
from desktop.chat.events import ChatObserver, ChatState
from desktop.chat.limiter import ProviderLimiter
from desktop.chat.message_edits import CONTINUATION_KEY, CONTINUE_PROMPT, MessageEdits
from desktop.chat.profile import ChatProfiles, ChatRef, NewChat
from desktop.chat.research.progress import RESEARCH_KEY, ResearchLimits
from desktop.chat.running import RunningTurn
from desktop.chat.turn_locks import TurnLocks
from desktop.chat.turn_plan import TurnOverrides, TurnPlan, plan_turn
from desktop.chat.turn_runner import TurnJob, TurnRunner
from desktop.chat.use_board import BOARD, UseBoard
from desktop.core.conversation import SessionRecorder, auto_title
from desktop.core.errors import ConfigError
from desktop.core.messages import Message, Part, TextPart
from desktop.storage.memories import MemoryStore

if TYPE_CHECKING:
    from desktop.chat.app_context import ChatContext
    from desktop.chat.compare import CompareRunner
    from desktop.chat.research.start import ResearchJob
    from desktop.chat.titling import ChatTitler
    from desktop.core.orchestrator import ConfirmContinue
    from desktop.core.settings import AppSettings
    from desktop.storage.branches import ActiveBranch
    from desktop.tools.approval import Approver

log = logging.getLogger(__name__)


class ChatService:
    """The chat layer's assembly: the one object built on the whole app context. It
    hands each part the services it uses (issue 26) and keeps for itself the chats
    (``sessions``), the settings and how a provider is built."""

    def __init__(self, ctx: ChatContext, *, write_titles: bool = False) -> None:
        """``write_titles``: ask the model for each new chat's title (the window)."""
        self.sessions = ctx.sessions
        self.settings = ctx.settings
        self.build_provider = ctx.build_provider
        self._providers = ctx.providers  # (and write_titles: for the titler, when made)
        self._write_titles = write_titles
        self.profiles = ChatProfiles(ctx.sessions, ctx.settings, ctx.providers,
                                     assistants=ctx.assistants, projects=ctx.projects,
                                     data_folder=ctx.paths.root)
        self.tools = ChatTools(ctx)
        self.chats = ChatSettings(self.profiles, self.tools, ctx.settings_store)
        self.approvals = ApprovalBoard()
        self.edits = MessageEdits(ctx.sessions)
        self.limiter = ProviderLimiter(self._slot_limit)
        self.locks = TurnLocks(ctx.paths.root)  # a chat answers in one process at a time
        # Builds, runs and ends every turn (this service's and each compare column's).
        self.memories = MemoryStore(ctx.db)  # facts kept across chats
        self.runner = TurnRunner(self.tools, self.approvals, self.limiter, self.locks,
                                 ctx.settings, build_provider=ctx.build_provider,
                                 build_orchestrator=ctx.build_orchestrator,
                                 memories=self.memories)
        self.runner.on_ended.append(self._turn_ended)
        self.chat_states: ChatStates = self.runner.states
        self.on_state: list[StateObserver] = self.chat_states.observers
        self.on_sessions_changed: list[Callable[[], None]] = []
        self.approvals.on_request.append(self._approval_opened)
        ctx.settings.subscribe(self._settings_changed)
        self.approvals.on_close.append(self._approval_closed)

    # (The two below are made, and their modules loaded, when first used: not before a
    # question typed while the window loads is sent.)

    @cached_property
    def titles(self) -> ChatTitler:
        """The model's titles of new chats (told of a chat when it is created by its
        first message, and of the end of each turn)."""
        return chat_features.ChatTitler(self.sessions, self._providers, self.settings,
                                        self.build_provider,
                                        lambda _sid, _title: self._sessions_changed(),
                                        enabled=self._write_titles)

    @cached_property
    def compare(self) -> CompareRunner:
        """One question to several models at once, on the same runner."""
        return chat_features.CompareRunner(self.runner, self.sessions, self.chats, self.plan,
                                           self.open_chat)

    def _settings_changed(self, old: AppSettings, new: AppSettings) -> None:
        if old.max_concurrent_requests != new.max_concurrent_requests:
            self.limiter.reset()  # new slots with the new limit for the next requests

    def _slot_limit(self) -> int:
        return self.settings.current.max_concurrent_requests

    # -- watching chats ------------------------------------------------------------

    def observe(self, session_id: str, observer: ChatObserver) -> Callable[[], None]:
        """Watch a chat: first everything its running turn streamed so far, then live.
        Looking at a chat marks it read (a failed one stays failed until its next turn).
        Returns the function that stops watching."""
        return self.runner.observe(session_id, observer)

    def state(self, session_id: str) -> ChatState:
        return self.chat_states.get(session_id)

    def states(self) -> dict[str, ChatState]:
        return self.chat_states.all()

    def running(self, session_id: str | None) -> RunningTurn | None:
        return self.runner.running(session_id)

    def running_ids(self) -> list[str]:
        return self.runner.running_ids()

    # -- turns -------------------------------------------------------------------------

    def plan(self, chat: ChatRef, attachments: Sequence[Part] = (),
             overrides: TurnOverrides | None = None, question: str = "") -> TurnPlan:
        """``question``: what the user asks (the memories most relevant to it are sent)."""
        return plan_turn(self.profiles, self.tools, self.settings.current, chat, attachments,
                         memories=self.memories, overrides=overrides, question=question)

    def start(self, chat: ChatRef, text: str, attachments: Sequence[Part] = (), *,
              branch_from: str | None = None, regenerate: bool = False,
              overrides: TurnOverrides | None = None,
              approver: Approver | UseBoard | None = BOARD,
              confirm: ConfirmContinue | UseBoard | None = BOARD, save: bool = True,
              continuation: bool = False,
              research: ResearchLimits | None = None) -> RunningTurn:
        """Start a turn of ``chat`` (a new chat is created first) and return it at
        once; raises ConfigError (a sentence for the user) when it cannot start.

        ``regenerate``: answer again from before assistant message ``branch_from``;
        with ``branch_from`` alone, ``text`` is a new version of that user message.
        ``approver``/``confirm``: the CLI's own; by default approvals go on
        :attr:`approvals` and "Continue?" to the chat's observers.
        ``save=False``: nothing is stored (``assista ask --no-save``).
        ``continuation``: ``text`` asks to continue the last answer (shown as such).
        ``research``: research the question within these limits and answer with a
        cited report (:mod:`desktop.chat.research`)."""
        if not (text.strip() or attachments or regenerate):
            raise ConfigError("the message is empty", code="message_empty")
        temporary = isinstance(chat, NewChat) and chat.temporary
        if temporary:
            save = False  # a temporary chat is never stored
        plan = self.plan(chat, attachments, overrides, question=text)
        research_job = None
        if research is not None:  # (checked before a chat is made for it)
            research_job = self.tools.research_job(research, plan.knowledge, text)
        user: Message | None = None
        if not regenerate:
            data: dict[str, object] = {CONTINUATION_KEY: True} if continuation else {}
            if research_job is not None:
                data[RESEARCH_KEY] = True
            user = Message(role="user", parts=[TextPart(text=text), *attachments],
                           provider_data=data)
        if isinstance(chat, NewChat) and temporary:
            if self.runner.running(chat.temporary_id) is not None:
                raise ConfigError("This chat is still answering; stop it first.",
                                  code="still_answering")
            # (its own list: the loop appends each finished message to it)
            session_id, history = chat.temporary_id, chat.history
        else:
            session_id, history = self._open_chat(chat, plan, text, attachments,
                                                  branch_from) \
                if save else (f"unsaved-{id(user)}", [])
        info = self.sessions.get_session(session_id) if save else None
        turn = RunningTurn(session_id, info.title if info else "", [], history,
                           model=plan.model)
        turn.base = [*history, *([user] if user is not None else [])]
        self.runner.begin(turn)
        try:
            job = (self.runner.build(turn, plan, overrides, approver, confirm)
                   if research_job is None else research_job)
        except BaseException:
            self.runner.abandon(turn)
            raise
        turn.task = asyncio.ensure_future(self._run(turn, plan, job, user, save))
        if save and branch_from is None and not (regenerate or continuation):
            self.chats.set_draft(chat, "")  # the draft was this message
        return turn

    def _open_chat(self, chat: ChatRef, plan: TurnPlan, text: str, attachments: Sequence[Part],
                   branch_from: str | None) -> tuple[str, list[Message]]:
        """The chat's id (a new chat is created) and what its turn starts from, with its
        lock held: a chat answers in one process at a time (:mod:`.turn_locks`)."""
        sid = chat if isinstance(chat, str) else None
        if sid is not None:
            self.runner.check_idle(sid)
        try:
            if sid is not None:
                self.locks.claim(sid)  # (before anything in it changes)
            sid = self.open_chat(chat, plan, text, attachments, switch=True)
            self.locks.claim(sid)
            sessions = self.sessions
            return sid, (sessions.start_branch(sid, branch_from) if branch_from is not None
                         else list(sessions.load_active_branch(sid).messages))
        except BaseException:
            if sid is not None:
                self.locks.release(sid)
            raise

    def open_chat(self, chat: ChatRef, plan: TurnPlan, text: str,
                  attachments: Sequence[Part] = (), *, switch: bool = False) -> str:
        """The id of ``chat``: a new chat is created (titled after ``text``, or the
        attachments' names) with ``plan``'s provider and model; an existing one must
        exist (ConfigError) and, with ``switch``, takes ``plan``'s provider and model."""
        if isinstance(chat, str):
            if self.sessions.get_session(chat) is None:
                raise ConfigError(f"no chat with id {chat!r}",
                                  code="chat_gone", params={"chat": chat})
            if switch:
                self.sessions.update_session(chat, provider_id=plan.config.id,
                                                 model=plan.model)
            return chat
        names = [getattr(p, "name", None) or "attachment" for p in attachments]
        info = self.sessions.create_session(
            title=auto_title(text or " ".join(names)), provider_id=plan.config.id,
            model=plan.model, workspace=plan.workspace, system_prompt=chat.system_prompt,
            assistant_id=chat.assistant_id, extra=self.profiles.saved_extra(chat),
            project_id=chat.project_id)
        self.titles.chat_created(info.id, info.title, plan.config, plan.model,
                                 text or " ".join(names))
        self.tools.move_grants(chat.grant_key, info.id)
        self._sessions_changed()
        return info.id

    async def _run(self, turn: RunningTurn, plan: TurnPlan, job: TurnJob | ResearchJob,
                   user: Message | None, save: bool) -> None:
        recorder = SessionRecorder(self.sessions, turn.session_id, turn.emit) if save \
            else None
        try:
            if user is not None:
                turn.history.append(user)
                if recorder is not None:  # saved off the loop, before the answer
                    recorder.queue.put(user)
            if isinstance(job, TurnJob):
                await self.runner.execute(turn, job, recorder)
            else:
                await job.run(self.runner, turn, plan, recorder)
        finally:  # (also when stopped again meanwhile: the chat must not stay busy)
            self.runner.finish(turn)

    def _turn_ended(self, turn: RunningTurn, status: str) -> None:
        self._sessions_changed()
        self.titles.turn_ended(turn.session_id, status, turn.history)

    # -- the board -----------------------------------------------------------------------

    def _approval_opened(self, pending: PendingApproval) -> None:
        if self.runner.running(pending.session_id) is not None:
            self.chat_states.set(pending.session_id, "approval")

    def _approval_closed(self, _call_id: str) -> None:
        for turn in self.runner.turns():
            sid = turn.session_id
            if self.chat_states.get(sid) == "approval" and not turn.confirm_pending and \
                    not self.approvals.for_chat(sid):
                self.chat_states.set(sid, "answering")

    # -- stopping ------------------------------------------------------------------------

    def stop(self, session_id: str | None) -> None:
        """Stop a chat's answer; what streamed is kept, marked stopped."""
        turn = self.runner.running(session_id)
        if turn is None:
            return
        self.approvals.deny_chat(turn.session_id, "The user stopped the answer.")
        turn.cancel()

    def stop_all(self) -> None:
        for session_id in self.runner.running_ids():
            self.stop(session_id)

    def answer_confirm(self, session_id: str, proceed: bool) -> None:
        turn = self.runner.running(session_id)
        if turn is not None:
            turn.answer_confirm(proceed)

    def cancel_tool(self, session_id: str | None, call_id: str) -> bool:
        turn = self.running(session_id)
        cancel = getattr(turn.tools, "cancel", None) if turn is not None else None
        return bool(cancel(call_id)) if cancel is not None else False

    async def wait(self, session_id: str) -> None:
        turn = self.runner.running(session_id)
        if turn is not None and turn.task is not None:
            await asyncio.gather(turn.task, return_exceptions=True)

    async def wait_idle(self) -> None:
        while turns := self.runner.turns():
            tasks = [t.task for t in turns if t.task is not None]
            await asyncio.gather(*tasks, return_exceptions=True)

    async def shutdown(self) -> None:
        """Stop every answer (saved as stopped), then the MCP servers."""
        titles: ChatTitler | None = vars(self).get("titles")  # (made when first used)
        if titles is not None:
            titles.cancel()  # a title is not worth waiting for at exit
        self.stop_all()
        await self.wait_idle()
        await self.tools.stop_mcp()

    # -- chats -----------------------------------------------------------------------------

    def delete_chat(self, session_id: str) -> None:
        self.stop(session_id)
        self.sessions.delete_session(session_id)
        self.chats.drafts.forget(session_id)
        self.chat_states.forget(session_id)
        self._sessions_changed()

    def delete_message(self, session_id: str, message_id: str) -> ActiveBranch:
        """Delete a message and what follows it (not while the chat answers)."""
        self.runner.check_idle(session_id)
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
        self.sessions.rename_session(session_id, title)
        if (turn := self.runner.running(session_id)) is not None:
            turn.title = title
        self._sessions_changed()

    def _sessions_changed(self) -> None:
        for callback in list(self.on_sessions_changed):
            try:
                callback()
            except Exception:
                log.exception("a chat-list observer failed")

