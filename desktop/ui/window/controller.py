"""The window's view of the chat service: the chat on screen, as Qt signals.

The chat service (:mod:`desktop.chat.service`) runs the turns of every chat; this
adapter only follows the one the window shows. Opening another chat or a new one
never stops an answer: the controller stops watching the old chat (which goes on,
saves and finishes by itself) and starts watching the new one — first what its
running turn streamed so far, then live. Widgets observe the signals here and on
:attr:`bridge`; they never await the loop themselves.

What it holds: the chat on screen (which one, its messages and branches, its provider,
model and workspace), opening chats, starting, following and stopping its turns. The
chat's assistant and own prompt are on :attr:`profile`
(:mod:`~desktop.ui.window.chat_profile`), its tool and skill switches and grants on
:attr:`tool_switches` (:mod:`~desktop.ui.window.chat_tool_switches`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, Signal

from desktop.chat.chat_tools import ChatTools
from desktop.chat.events import (
    ChatEvent,
    ConfirmRequested,
    ProviderRetrying,
    SaveFailed,
    TurnEnded,
    TurnFailed,
    TurnQueued,
    retry_text,
)
from desktop.chat.last_chat import last_chat, remember_last_chat
from desktop.chat.profile import ChatRef, NewChat
from desktop.chat.research.progress import ResearchLimits, ResearchProgress
from desktop.chat.running import RunningTurn
from desktop.chat.saved_chats import ActiveBranch
from desktop.chat.service import ChatService
from desktop.chat.turn_locks import ChatBusy
from desktop.chat.turn_plan import ProviderMissing
from desktop.core.errors import AssistaError
from desktop.core.events import TextDelta
from desktop.core.messages import Message, Part
from desktop.core.settings import AppSettings, ProviderConfig
from desktop.tools.approval import ToolProgress
from desktop.ui.error_text import error_text, exception_text
from desktop.ui.window.app_services import AppServices, WindowContext
from desktop.ui.window.bridge import AgentBridge
from desktop.ui.window.chat_profile import ChatProfile
from desktop.ui.window.chat_tool_switches import ChatToolSwitches

log = logging.getLogger(__name__)

__all__ = ["ChatController", "retry_text"]


class ChatController(QObject):
    sessionsChanged = Signal()
    sessionOpened = Signal(str, list)  # session id, messages
    userMessageAdded = Signal(object)  # Message
    busyChanged = Signal(bool)  # the chat on screen started / stopped answering
    errorOccurred = Signal(str)
    saveFailed = Signal(object)  # SaveFailed: the window keeps the answer and offers Retry
    providerMissing = Signal()
    confirmRequested = Signal(int)  # rounds so far; answer with answer_confirm()
    selectionChanged = Signal()  # provider/model/workspace of the current chat
    toolsChanged = Signal()  # MCP servers started/stopped, tools switched on/off
    statusMessage = Signal(str, int)  # text, how long to show it (ms)
    chatStateChanged = Signal(str, str)  # session id, ChatState (any chat)

    def __init__(self, ctx: WindowContext, parent: QObject | None = None, *,
                 service: ChatService | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.service = service or ChatService(ctx)
        self.bridge = AgentBridge(self)
        self.session_id: str | None = None
        self.new_chat: NewChat = self.service.chats.new_chat()
        # The temporary chat on screen (no memory, never stored; gone once left)
        self.temporary: NewChat | None = None
        self.branches: ActiveBranch | None = None
        self.profile = ChatProfile(self)  # the chat's assistant and own system prompt
        self.tool_switches = ChatToolSwitches(self)  # its tools and skills, on or off
        # What the widgets are handed: the app's narrow services (providers, chats, ...)
        self.services = AppServices(ctx)
        self._history: list[Message] = []
        self._unobserve: Callable[[], None] | None = None
        self._turn: RunningTurn | None = None  # the running turn of the chat on screen
        self._mcp_task: asyncio.Future[dict[str, bool]] | None = None
        s = self.service
        s.on_state.append(self.chatStateChanged.emit)
        s.on_sessions_changed.append(self._sessions_changed)
        self._holding: list[bool] | None = None  # (send: the chats' changes, held)
        s.approvals.on_request.append(self.bridge.approvalRequested.emit)
        s.approvals.on_close.append(self.bridge.approvalClosed.emit)
        s.tools.on_change.append(self.toolsChanged.emit)

    # -- the chat on screen -------------------------------------------------------------

    @property
    def chat(self) -> ChatRef:
        if self.temporary is not None:
            return self.temporary
        return self.session_id or self.new_chat

    @property
    def busy(self) -> bool:
        return self.service.running(self.session_id) is not None

    @property
    def history(self) -> list[Message]:
        """The messages of the chat on screen (growing while it answers)."""
        turn = self.service.running(self.session_id)
        return turn.history if turn is not None else self._history

    @property
    def settings(self) -> AppSettings:
        return self.ctx.settings.current

    @property
    def tools(self) -> ChatTools:
        return self.service.tools

    def companion(self, parent: QObject | None = None) -> ChatController:
        """Another window's adapter on the same chat service (quick ask): turns run
        there, each adapter follows its own chat."""
        return ChatController(self.ctx, parent, service=self.service)

    def remember_last_chat(self, session_id: str | None) -> None:
        """``session_id`` is on screen now: reopened at the next start."""
        remember_last_chat(self.ctx.settings_store, session_id)

    def last_chat(self) -> str | None:
        """The chat the user was in when the app last closed, if it is still there."""
        return last_chat(self.ctx.settings_store, self.ctx.sessions)

    def provider(self) -> ProviderConfig | None:
        return self.service.chats.provider(self.chat)

    def model(self) -> str:
        return self.service.chats.model(self.chat)

    def workspace(self) -> str | None:
        return self.service.chats.workspace(self.chat)

    def set_provider(self, provider_id: str) -> None:
        self.service.chats.set_provider(self.chat, provider_id)
        self.selectionChanged.emit()

    def set_model(self, model: str) -> None:
        self.service.chats.set_model(self.chat, model)
        self.selectionChanged.emit()

    def set_workspace(self, folder: str | None) -> None:
        self.service.chats.set_workspace(self.chat, folder)
        self.selectionChanged.emit()

    def update_settings(self, **changes: object) -> None:
        """Change and save top-level settings fields (validated)."""
        self.ctx.settings.update(**changes)
        self.selectionChanged.emit()

    def settings_saved(self, *, tools: bool = False) -> None:
        """A dialog saved settings (through the settings service): the chat on screen's
        pieces follow, and its tools when they changed."""
        self.selectionChanged.emit()
        if tools:
            self.toolsChanged.emit()

    def reload_settings(self) -> None:
        self.ctx.settings.reload()
        self.selectionChanged.emit()

    # -- opening chats --------------------------------------------------------------------

    def new_session(self) -> None:
        """Show a new, empty chat with the assistant of the chat on screen; a chat that
        is answering goes on in the background."""
        new_chat = self.service.chats.new_chat(like=self.chat)
        self.temporary = None  # (a temporary chat left is gone)
        self._watch(None)
        self.session_id = None
        self._history = []
        self.branches = None
        self.new_chat = new_chat
        self.sessionOpened.emit("", [])
        self.busyChanged.emit(False)
        self.selectionChanged.emit()
        self.toolsChanged.emit()

    def new_temporary_chat(self) -> None:
        """Show a new temporary chat: it reads and writes no memory and is not kept
        (its messages are gone once another chat is shown)."""
        temporary = self.service.chats.new_chat(like=self.chat)
        temporary.temporary = True
        self.new_session()
        self.temporary = temporary
        self.sessionOpened.emit("", [])
        self.selectionChanged.emit()

    def open_session(self, session_id: str) -> None:
        """Show a saved chat; if it is answering, what it streamed so far and then live."""
        turn = self.service.running(session_id)
        if turn is not None:
            messages, self.branches = list(turn.base), None
        else:
            try:
                self.branches = self.ctx.sessions.load_active_branch(session_id)
            except AssistaError as exc:
                self.errorOccurred.emit(exception_text(exc))
                return
            messages = list(self.branches.messages)
        self._watch(None)
        self.temporary = None  # (a temporary chat left is gone)
        self.session_id = session_id
        self._history = messages
        self.sessionOpened.emit(session_id, list(messages))
        self._watch(session_id)
        self.busyChanged.emit(self.busy)
        self.selectionChanged.emit()

    def _watch(self, session_id: str | None) -> None:
        if self._unobserve is not None:
            self._unobserve()
            self._unobserve = None
        self._turn = self.service.running(session_id)
        if session_id is not None:
            self._unobserve = self.service.observe(session_id, self._on_event)

    def _refresh_branches(self) -> None:
        if self.session_id is not None:
            with contextlib.suppress(AssistaError):
                self.branches = self.ctx.sessions.load_active_branch(self.session_id)

    def rename_session(self, session_id: str, title: str) -> None:
        self.service.rename_chat(session_id, title)

    def delete_session(self, session_id: str) -> None:
        if session_id == self.session_id:
            self.new_session()
        self.service.delete_chat(session_id)

    # -- turns ----------------------------------------------------------------------------

    def edit_and_resend(self, message_id: str, text: str) -> bool:
        """Send ``text`` as a new version of user message ``message_id``: a sibling
        branch; the original and its answers stay, reachable with ‹ n/m ›."""
        return self.send(text, branch_from=message_id)

    def regenerate(self, message_id: str) -> bool:
        """Answer again from before assistant message ``message_id``."""
        return self.send("", branch_from=message_id, regenerate=True)

    def step_branch(self, message_id: str, step: int) -> None:
        """Show the previous (-1) or next (+1) sibling of ``message_id``."""
        if self.busy or self.session_id is None:
            return
        try:
            branch = self.ctx.sessions.step_branch(self.session_id, message_id, step)
        except AssistaError as exc:
            self.errorOccurred.emit(exception_text(exc))
            return
        self._history = list(branch.messages)
        self.branches = branch
        self.sessionOpened.emit(self.session_id, list(self._history))

    def delete_message(self, message_id: str) -> None:
        """Delete a message of the chat on screen and everything after it."""
        if self.session_id is None:
            return
        try:
            branch = self.service.delete_message(self.session_id, message_id)
        except AssistaError as exc:
            self.errorOccurred.emit(exception_text(exc))
            return
        self.branches, self._history = branch, list(branch.messages)
        self.sessionOpened.emit(self.session_id, list(self._history))

    def fork_chat(self, message_id: str) -> None:
        """Open a new chat holding this one down to ``message_id``."""
        if self.session_id is None:
            return
        try:
            fork = self.service.fork_chat(self.session_id, message_id)
        except AssistaError as exc:
            self.errorOccurred.emit(exception_text(exc))
            return
        self.open_session(fork)

    def continue_answer(self) -> bool:
        """Ask the model to go on where the last answer of the chat on screen stopped."""
        if self.session_id is None or self.busy:
            return False
        try:
            turn = self.service.continue_answer(self.session_id)
        except AssistaError as exc:
            self.errorOccurred.emit(self.refusal(exc))
            return False
        self._watch(turn.session_id)
        self.userMessageAdded.emit(turn.base[-1])
        self.busyChanged.emit(True)
        return True

    def _sessions_changed(self) -> None:
        if self._holding is None:
            self.sessionsChanged.emit()
        else:
            self._holding.append(True)

    def branch_label(self, message_id: str) -> str | None:
        """"2/3" when the message has siblings in the shown conversation."""
        position = self.branches.position(message_id) if self.branches is not None else None
        return position.label if position is not None else None

    def send(self, text: str, attachments: Sequence[Part] = (), *,
             branch_from: str | None = None, regenerate: bool = False,
             research: bool = False) -> bool:
        """Start a turn of the chat on screen; False (and a signal saying why) when it
        cannot start. ``research``: a research run within the limits of Settings."""
        if not (text.strip() or attachments or regenerate) or self.busy:
            return False
        if branch_from is not None and self.session_id is None:
            return False
        if branch_from is not None and self.temporary is not None:
            self.statusMessage.emit(self.tr("A temporary chat has one version of each "
                                            "message: edit and regenerate are not available."),
                                    8000)
            return False
        # The chats change once for the list (it lists them all again): the chat made,
        # opened and its message on top (at the end, with the new chat the open one).
        held: list[bool] = []
        self._holding = held
        try:
            limits = (ResearchLimits.from_settings(self.service.settings.current)
                      if research else None)
            turn = self.service.start(self.chat, text, attachments, branch_from=branch_from,
                                      regenerate=regenerate, research=limits)
        except (ProviderMissing, AssistaError) as exc:
            self._holding = None
            if held:  # (a chat made, then no turn)
                self.sessionsChanged.emit()
            if isinstance(exc, ProviderMissing):
                self.providerMissing.emit()
            else:
                self.errorOccurred.emit(self.refusal(exc))
            return False
        finally:
            self._holding = None
        changed = bool(held) or not regenerate  # (a question moves its chat on top)
        if self.session_id != turn.session_id:
            self.session_id = turn.session_id
            self.new_chat = self.service.chats.new_chat()
            changed = True
        if changed:
            self.sessionsChanged.emit()
        self._watch(turn.session_id)
        if branch_from is not None:
            self.branches = None
            self.sessionOpened.emit(turn.session_id, list(turn.history))
        if not regenerate:
            self.userMessageAdded.emit(turn.base[-1])
        self.busyChanged.emit(True)
        return True

    def refusal(self, exc: AssistaError) -> str:
        """Why a turn did not start, for the user."""
        if isinstance(exc, ChatBusy):
            return self.tr("This chat is answering in another Assista process (assista ask); "
                           "try again once that answer has finished.")
        return exception_text(exc)

    def _on_event(self, event: ChatEvent) -> None:
        """An event of the chat on screen (live, or replayed when it was opened)."""
        if type(event) is TextDelta:  # nearly every event: straight to the view
            self.bridge.textDelta.emit(event.text)
        elif isinstance(event, ToolProgress):
            self.bridge.toolProgress.emit(event)
        elif isinstance(event, ProviderRetrying):
            self.statusMessage.emit(
                retry_text(event.provider, event.attempt, event.delay_s, event.reason),
                int((event.delay_s + 15) * 1000))
            self.bridge.retrying.emit(event)
        elif isinstance(event, TurnQueued):
            self.bridge.queued.emit(event.waiting)
            if event.waiting:
                self.statusMessage.emit(self.tr("Waiting for another answer from this provider to "
                                                "finish…"), 0)
        elif isinstance(event, ConfirmRequested):
            self.confirmRequested.emit(event.rounds)
        elif isinstance(event, SaveFailed):
            self.saveFailed.emit(event)
        elif isinstance(event, TurnFailed):
            self.errorOccurred.emit(error_text(event.info, event.message))
        elif isinstance(event, TurnEnded):
            self._turn_ended(event)
        elif isinstance(event, ResearchProgress):
            self.bridge.research.emit(event)
        else:
            self.bridge(event)

    def _turn_ended(self, event: TurnEnded) -> None:
        if event.session_id != self.session_id:
            return
        if self._turn is not None:
            self._history = self._turn.history
            self._turn = None
        self._refresh_branches()
        self.busyChanged.emit(False)

    # -- memory -----------------------------------------------------------------------------

    def forget_memory(self, memory_id: str) -> None:
        """Undo of "Memory saved": the memory is deleted (said in the status bar)."""
        try:
            forgotten = self.service.memories.forget(memory_id)
        except AssistaError as exc:
            self.errorOccurred.emit(exception_text(exc))
            return
        self.statusMessage.emit(self.tr("Memory removed.") if forgotten else
                                self.tr("This memory was already deleted."), 5000)

    # -- tools ------------------------------------------------------------------------------
    # (the chat on screen's tool and skill switches: :attr:`tool_switches`)

    def start_mcp(self) -> None:
        """(Re)start the MCP servers from settings in the background."""
        try:
            self._mcp_task = asyncio.ensure_future(self.service.tools.start_mcp())
        except RuntimeError:
            log.info("no event loop: MCP servers not started")

    # -- stopping ---------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop the answer of the chat on screen (others go on)."""
        self.service.stop(self.session_id)

    def cancel_tool(self, call_id: str) -> bool:
        """Cancel one running call (its result tells the model it was cancelled)."""
        return self.service.cancel_tool(self.session_id, call_id)

    def stop_all(self) -> None:
        self.service.stop_all()

    def running_count(self) -> int:
        return len(self.service.running_ids())

    def answer_confirm(self, proceed: bool) -> None:
        if self.session_id is not None:
            self.service.answer_confirm(self.session_id, proceed)

    async def wait_idle(self) -> None:
        await self.service.wait_idle()

    async def shutdown(self) -> None:
        await self.service.shutdown()
