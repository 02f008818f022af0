"""Compare: one question to 2–4 models at once, each answer a sibling branch.

``ChatService.compare`` starts and steers compare runs (:mod:`desktop.chat.compare_run`).
Each column is a turn of its own, built exactly as a normal turn is (the chat's whole
conversation, attachments, system prompt, tools, options; approvals on the board, the
per-provider limiter), and streams concurrently with the others. The question is
saved once; every column's answer is saved as a child of it, so the answers are
‹ n/m › siblings. A column that fails (or cannot even start) is saved as a failed
answer with its error and leaves the others alone. When the run ends the kept
column (by default the first) is the active branch. Qt-free.

Each column's turn is built, run and ended by the chat service's
:class:`~desktop.chat.turn_runner.TurnRunner`, and the run as a whole is a turn of
that runner too (its group turn), so a compare run behaves like any turn to everyone
else (chat list state, Stop, shutdown, titles).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Protocol

import msgspec

from desktop.chat.compare_run import (
    MAX_MODELS,
    MIN_MODELS,
    ColumnStore,
    CompareColumn,
    CompareRun,
    CompareTarget,
    PerModel,
)
from desktop.chat.events import TurnEnded, TurnFailed
from desktop.chat.profile import NewChat
from desktop.chat.running import RunningTurn
from desktop.chat.turn_plan import TurnOverrides, TurnPlan
from desktop.chat.turn_runner import TurnJob
from desktop.chat.use_board import BOARD, UseBoard
from desktop.core.conversation import SessionRecorder
from desktop.core.error_codes import ERROR_KEY
from desktop.core.errors import AssistaError, ConfigError
from desktop.core.messages import ImagePart, Message, Part, TextPart
from desktop.core.orchestrator import RunResult
from desktop.core.save_queue import SaveQueue
from desktop.tools.approval import ApprovalDecision

if TYPE_CHECKING:
    from desktop.chat.chat_settings import ChatSettings
    from desktop.chat.profile import ChatRef
    from desktop.chat.turn_runner import TurnRunner
    from desktop.core.orchestrator import ConfirmContinue
    from desktop.storage.branches import ActiveBranch
    from desktop.storage.sessions import SessionStore
    from desktop.tools.approval import ApprovalRequest, Approver

log = logging.getLogger(__name__)

#: What a column runs: its loop and plan, or why it could not start.
_Job = TurnJob | AssistaError  # (the reason a column cannot start)


class PlanTurn(Protocol):
    """The plan of a chat's next turn (:meth:`desktop.chat.service.ChatService.plan`)."""

    def __call__(self, chat: ChatRef, attachments: Sequence[Part] = (),
                 overrides: TurnOverrides | None = None, question: str = "") -> TurnPlan: ...


class OpenChat(Protocol):
    """The id of a chat, a new one created for the turn
    (:meth:`desktop.chat.service.ChatService.open_chat`)."""

    def __call__(self, chat: ChatRef, plan: TurnPlan, text: str,
                 attachments: Sequence[Part] = ()) -> str: ...


class CompareRunner:
    def __init__(self, runner: TurnRunner, sessions: SessionStore, chats: ChatSettings,
                 plan: PlanTurn, open_chat: OpenChat) -> None:
        """``runner``: builds, runs and ends the columns' turns (its approvals board and
        chat locks are the compare runs' too); ``chats``: the drafts a question clears."""
        self.runner = runner
        self.sessions = sessions
        self.chats = chats
        self.plan = plan
        self.open_chat = open_chat
        self.runs: dict[str, CompareRun] = {}  # the running compare of each chat

    def run_of(self, session_id: str | None) -> CompareRun | None:
        return self.runs.get(session_id) if session_id else None

    # -- starting -------------------------------------------------------------------------

    def start(self, chat: ChatRef, text: str, targets: Sequence[CompareTarget],
              attachments: Sequence[Part] = (), *, overrides: TurnOverrides | None = None,
              approver: Approver | UseBoard | PerModel | None = BOARD,
              confirm: ConfirmContinue | UseBoard | None = BOARD,
              save: bool = True) -> CompareRun:
        """Ask ``text`` (with ``attachments``) of every target at once, after the chat's
        conversation; raises ConfigError (a sentence for the user) when it cannot start.
        ``approver``/``confirm``/``save`` as in :meth:`ChatService.start`; ``PerModel``:
        each model's tools ask their own approver."""
        _check_count(targets)
        if not (text.strip() or attachments):
            raise ConfigError("the message is empty", code="message_empty")
        if isinstance(chat, NewChat) and chat.temporary:  # (its answers would be kept)
            raise ConfigError("Comparing models is not available in a temporary chat.",
                              code="temporary_compare")
        question = Message(role="user", parts=[TextPart(text=text), *attachments])
        plan = self._first_plan(chat, targets, overrides, attachments)  # (none: raises)
        jobs_chat = chat
        if save:
            session_id = self._chat_for(chat, plan, attachments, text)
            history = list(self.sessions.load_active_branch(session_id).messages)
            jobs_chat = session_id
        else:
            session_id, history = f"unsaved-{id(question)}", []
        run = self._launch(jobs_chat, session_id, history, question, targets,
                           overrides=overrides, approver=approver, confirm=confirm, save=save,
                           new_question=True)
        if save:
            self.chats.set_draft(chat, "")  # the draft was this question
        return run

    def ask_others(self, session_id: str, message_id: str, targets: Sequence[CompareTarget],
                   *, overrides: TurnOverrides | None = None) -> CompareRun:
        """Answer an earlier question again with other models: ``message_id`` is the
        question or one of its answers; the new answers become its siblings."""
        _check_count(targets, minimum=1)
        self.runner.check_idle(session_id)
        self.runner.locks.claim(session_id)  # (before the shown branch changes)
        try:
            return self._ask_others(session_id, message_id, targets, overrides)
        except BaseException:
            self.runner.locks.release(session_id)
            raise

    def _ask_others(self, session_id: str, message_id: str, targets: Sequence[CompareTarget],
                    overrides: TurnOverrides | None) -> CompareRun:
        branch = self.sessions.switch_branch(session_id, message_id)
        ids = [m.id for m in branch.messages]
        if message_id not in ids:
            raise ConfigError("That message is not in this chat.", code="message_not_in_chat")
        index = ids.index(message_id)
        while index >= 0 and branch.messages[index].role != "user":
            index -= 1
        if index < 0:
            raise ConfigError("There is no question before this message to ask again.",
                              code="no_question_before")
        history, question = branch.messages[:index], branch.messages[index]
        earlier: list[Message] = []
        for message in branch.messages[index + 1:]:  # the answer shown, to its end
            if message.role == "user":
                break
            earlier.append(message)
        run = self._launch(session_id, session_id, history, question, targets,
                           overrides=overrides, approver=BOARD, confirm=BOARD, save=True,
                           new_question=False)
        run.earlier = earlier
        return run

    def _first_plan(self, chat: ChatRef, targets: Sequence[CompareTarget],
                    overrides: TurnOverrides | None, attachments: Sequence[Part]) -> TurnPlan:
        """The plan of the first model that can answer (a new chat is created with it);
        when none can, why the first cannot — before anything is created."""
        first_error: AssistaError | None = None
        for target in targets:
            try:
                return self.plan(chat, attachments, _for_target(overrides, target))
            except AssistaError as exc:
                first_error = first_error or exc
        assert first_error is not None
        raise first_error

    def _chat_for(self, chat: ChatRef, plan: TurnPlan, attachments: Sequence[Part],
                  text: str) -> str:
        session_id = self.open_chat(chat, plan, text, attachments)
        self.runner.check_idle(session_id)
        return session_id

    def _launch(self, chat: ChatRef, session_id: str, history: list[Message],
                question: Message, targets: Sequence[CompareTarget], *,
                overrides: TurnOverrides | None,
                approver: Approver | UseBoard | PerModel | None,
                confirm: ConfirmContinue | UseBoard | None, save: bool,
                new_question: bool) -> CompareRun:
        if save:
            self.runner.locks.claim(session_id)  # (ChatBusy: it answers in another process)
        try:
            return self._make_run(chat, session_id, history, question, targets,
                                  overrides=overrides, approver=approver, confirm=confirm,
                                  save=save, new_question=new_question)
        except BaseException:
            self.runner.locks.release(session_id)
            raise

    def _make_run(self, chat: ChatRef, session_id: str, history: list[Message],
                  question: Message, targets: Sequence[CompareTarget], *,
                  overrides: TurnOverrides | None,
                  approver: Approver | UseBoard | PerModel | None,
                  confirm: ConfirmContinue | UseBoard | None, save: bool,
                  new_question: bool) -> CompareRun:
        info = self.sessions.get_session(session_id) if save else None
        title = info.title if info is not None else ""
        base = [*history, question]
        group = RunningTurn(session_id, title, list(base), list(base), model=targets[0].model)
        images = [p for p in question.parts if isinstance(p, ImagePart)]
        columns: list[CompareColumn] = []
        jobs: list[_Job] = []
        for index, target in enumerate(targets):
            turn = RunningTurn(session_id, f"{title} · {target.name}" if title else target.name,
                               list(base), list(base), model=target.model)
            column = CompareColumn(index, target, turn)
            column_overrides = _for_target(overrides, target)
            asker: Approver | None
            if isinstance(approver, UseBoard):
                asker = partial(self._ask, column)
            elif isinstance(approver, PerModel):
                asker = approver.approver_for(target)
            else:
                asker = approver
            job: _Job
            try:
                plan = self.plan(chat, images, column_overrides,
                                    question=question.body_text)
                job = self.runner.build(turn, plan, column_overrides, asker, confirm)
            except AssistaError as exc:
                job = exc
            columns.append(column)
            jobs.append(job)
        refusals = [job for job in jobs if isinstance(job, AssistaError)]
        if len(refusals) == len(jobs):
            first = refusals[0]
            raise ConfigError(str(first), code=first.code, params=first.params)
        run = CompareRun(session_id, question, columns, group, saved=save)
        self.runs[session_id] = run
        self.runner.begin(group)
        group.task = asyncio.ensure_future(self._run(run, jobs, new_question))
        return run

    # -- running --------------------------------------------------------------------------

    async def _run(self, run: CompareRun, jobs: list[_Job], new_question: bool) -> None:
        try:
            if run.saved and new_question:  # once, before any answer refers to it
                queue = SaveQueue(self.sessions, run.session_id)
                queue.put(run.question)
                await queue.close()
            for column, job in zip(run.columns, jobs, strict=True):
                column.turn.task = asyncio.ensure_future(self._run_column(run, column, job))
            await asyncio.gather(*(c.turn.task for c in run.columns if c.turn.task),
                                 return_exceptions=True)
        except asyncio.CancelledError:
            log.info("compare in %s stopped", run.session_id)
            for column in run.columns:
                column.turn.cancel()
            await asyncio.gather(*(c.turn.task for c in run.columns if c.turn.task),
                                 return_exceptions=True)
        except AssistaError as exc:  # the question could not be saved: nothing ran
            run.group.failure, run.group.failure_info = str(exc), exc.info
            run.group.emit(TurnFailed(str(exc), exc.info))
        finally:
            self._settle(run)

    async def _run_column(self, run: CompareRun, column: CompareColumn, job: _Job) -> None:
        turn = column.turn
        recorder = None
        if run.saved:
            column.store = ColumnStore(self.sessions, run.question.id)
            recorder = SessionRecorder(column.store, run.session_id, turn.emit)
        if isinstance(job, AssistaError):
            turn.failure, turn.failure_info = str(job), job.info
        try:
            await self.runner.execute(
                turn, None if isinstance(job, AssistaError) else job, recorder,
                failed=partial(self._record_failure, column, recorder))
        finally:  # (also when stopped again meanwhile)
            column.ended = True
            turn.emit(TurnEnded(run.session_id, column.status))

    @staticmethod
    def _record_failure(column: CompareColumn, recorder: SessionRecorder | None,
                        turn: RunningTurn) -> None:
        """A column that failed without an answer on record gets one: failed, with
        the error, so the sibling says what happened."""
        error, info = turn.failure or "", turn.failure_info
        turn.emit(TurnFailed(error, info))
        if column.first_id is not None:
            return
        target = column.target
        failed = Message(role="assistant", status="error", error=error, model=target.model,
                         provider=target.config.name,
                         provider_data={ERROR_KEY: info.to_json()} if info else {})
        column.first_id = failed.id
        turn.history.append(failed)
        if recorder is not None:
            recorder.queue.put(failed)

    def _settle(self, run: CompareRun) -> None:
        """The run is over: the kept (else the first answered) column is the active
        branch; the chat service is told the group turn ended."""
        group, columns = run.group, run.columns
        statuses = [c.status for c in columns]
        if run.saved:
            # The kept answer, else the one that was shown before (asking other models
            # changes nothing until the user keeps one), else the first that answered.
            ids = run.answer_ids()
            order = [*([run.kept] if run.kept is not None else []),
                     *([len(columns)] if run.earlier else []), *range(len(columns))]
            shown = next((ids[i] for i in order if ids[i] is not None), None)
            if shown is not None:
                try:
                    branch = self.sessions.switch_branch(run.session_id, shown)
                    group.history = list(branch.messages)
                except AssistaError as exc:
                    log.error("compare in %s: could not show the kept answer: %s",
                              run.session_id, exc)
        if group.failure is None:
            if all(s == "failed" for s in statuses):
                group.failure = "; ".join(f"{c.target.name}: {c.error}" for c in columns)
            else:
                status = "complete" if "complete" in statuses else next(
                    s for s in statuses if s != "failed")
                group.result = RunResult(status=status)  # type: ignore[arg-type]
        run.ended = True  # (before the chat service's observers hear of it)
        if self.runs.get(run.session_id) is run:
            del self.runs[run.session_id]  # its watchers hold it; the runner is done
        self.runner.finish(group)
        for callback in list(run.on_end):
            try:
                callback(run)
            except Exception:
                log.exception("a compare observer failed")

    async def _ask(self, column: CompareColumn, request: ApprovalRequest) -> ApprovalDecision:
        """A column's tool asks the user: on the board, as the chat's, remembered by the
        column so that its view (and Stop) can tell its questions apart."""
        column.asking.append(request)
        try:
            return await self.runner.approvals.ask(request, column.turn.session_id,
                                                    column.turn.title)
        finally:
            column.asking.remove(request)

    # -- steering ---------------------------------------------------------------------------

    def stop_column(self, run: CompareRun, index: int) -> None:
        """Stop one model's answer; what it streamed is kept, marked stopped."""
        column = run.columns[index]
        for pending in self.runner.approvals.for_chat(run.session_id):
            if column.asks(pending):
                pending.resolve(ApprovalDecision.deny("The user stopped this answer."))
        column.turn.cancel()

    def keep(self, run: CompareRun, index: int) -> ActiveBranch | None:
        """Make answer ``index`` (a column's, or ``len(columns)``: the earlier one) the
        chat's active branch and its provider and model the chat's; the others stay as
        siblings. Columns still answering are stopped first; then the branch is applied
        when the run ends (None is returned meanwhile)."""
        run.kept = index
        if run.saved and index < len(run.columns):
            target = run.columns[index].target
            self.sessions.update_session(
                run.session_id, provider_id=target.config.id, model=target.model)
        if not run.done:
            for column in run.columns:
                if column.index != index and not column.ended:
                    self.stop_column(run, column.index)
            return None
        first = run.answer_ids()[index]
        if not run.saved or first is None:
            return None
        return self.sessions.switch_branch(run.session_id, first)


def _check_count(targets: Sequence[CompareTarget], minimum: int = MIN_MODELS) -> None:
    if not minimum <= len(targets) <= MAX_MODELS:
        raise ConfigError(f"compare {minimum} to {MAX_MODELS} models at once "
                          f"({len(targets)} given)",
                          code="compare_count",
                          params={"minimum": minimum, "maximum": MAX_MODELS,
                                  "given": len(targets)})


def _for_target(overrides: TurnOverrides | None, target: CompareTarget) -> TurnOverrides:
    return msgspec.structs.replace(overrides or TurnOverrides(), config=target.config,
                                   model=target.model)
