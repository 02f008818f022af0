"""Owns the running turn: builds the orchestrator, runs it as a task, reports via signals.

Widgets call :meth:`ChatController.send` / :meth:`stop` and observe the signals of
the controller and of its :class:`AgentBridge`; they never await the loop themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from functools import partial

from PySide6.QtCore import QObject, Signal

from desktop.app import AppContext
from desktop.core.agent_events import AgentEvent
from desktop.core.conversation import auto_title, run_turn
from desktop.core.errors import AssistaError
from desktop.core.messages import ImagePart, Message, Part, TextPart
from desktop.core.provider import Provider
from desktop.core.settings import AppSettings, ProviderConfig
from desktop.core.tooling import ToolRunner
from desktop.storage.branches import ActiveBranch
from desktop.tools.approval import ApprovalDecision
from desktop.ui.window.bridge import AgentBridge
from desktop.ui.window.chat_profile import ChatProfile
from desktop.ui.window.tool_session import ToolSession

log = logging.getLogger(__name__)


def retry_text(name: str, attempt: int, delay_s: float, reason: str) -> str:
    """``attempt`` counts from 0 (the first retry); ``reason`` is ``HTTP 429`` or an
    exception's name."""
    why = {"HTTP 429": "is rate-limiting requests", "HTTP 529": "is overloaded",
           "HTTP 503": "is unavailable", "HTTP 408": "timed out"}.get(reason)
    if why is None:
        why = (f"answered {reason}" if reason.startswith("HTTP ")
               else f"could not be reached ({reason})")
    wait = f"{delay_s:.0f} s" if delay_s >= 1 else "a moment"
    return f"{name} {why}; trying again in {wait} (retry {attempt + 1})…"


class ChatController(QObject):
    sessionsChanged = Signal()
    sessionOpened = Signal(str, list)  # session id, messages
    userMessageAdded = Signal(object)  # Message
    busyChanged = Signal(bool)
    errorOccurred = Signal(str)
    providerMissing = Signal()
    confirmRequested = Signal(int)  # rounds so far; answer with answer_confirm()
    selectionChanged = Signal()  # provider/model/workspace of the current chat
    toolsChanged = Signal()  # MCP servers started/stopped, tools switched on/off
    statusMessage = Signal(str, int)  # text, how long to show it (ms)

    def __init__(self, ctx: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.bridge = AgentBridge(self)
        self.settings: AppSettings = ctx.load_settings()
        self.session_id: str | None = None
        self.history: list[Message] = []
        self._task: asyncio.Task[None] | None = None
        self._confirm: asyncio.Future[bool] | None = None
        self._new_chat_disabled: list[str] = []
        self.branches: ActiveBranch | None = None
        self._mcp_task: asyncio.Future[None] | None = None
        self.model_override: str | None = None
        self._running = False
        self.tools = ToolSession(ctx, self.bridge)
        self.profile = ChatProfile(self)  # the chat's assistant and own system prompt
        self.tools.on_mcp_change = self.toolsChanged.emit
        self._executor: ToolRunner | None = None

    # -- state ----------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._running

    def provider(self) -> ProviderConfig | None:
        return self.ctx.active_provider(self.settings)

    def model(self) -> str:
        if self.model_override:
            return self.model_override
        config = self.provider()
        return config.model if config else ""

    def workspace(self) -> str | None:
        if self.session_id:
            info = self.ctx.sessions.get_session(self.session_id)
            if info is not None and info.workspace:
                return info.workspace
        return self.settings.workspace

    def set_provider(self, provider_id: str) -> None:
        self.settings = self.settings.model_copy(update={"active_provider_id": provider_id})
        self.ctx.save_settings(self.settings)
        self.model_override = None
        self.selectionChanged.emit()

    def set_model(self, model: str) -> None:
        self.model_override = model.strip() or None
        config = self.provider()
        if config is not None and config.source == "user" and self.model_override:
            self.ctx.settings_store.save_provider(config.model_copy(update={"model": model}))
        self.selectionChanged.emit()

    def set_workspace(self, folder: str | None) -> None:
        self.settings = self.settings.model_copy(update={"workspace": folder})
        self.ctx.save_settings(self.settings)
        if self.session_id:
            self.ctx.sessions.update_session(self.session_id, workspace=folder)
        self.selectionChanged.emit()

    def update_settings(self, **changes: object) -> None:
        """Change and save top-level settings fields (validated)."""
        data = self.settings.model_dump()
        data.update(changes)
        self.settings = AppSettings.model_validate(data)
        self.ctx.save_settings(self.settings)
        self.selectionChanged.emit()

    def reload_settings(self) -> None:
        self.settings = self.ctx.load_settings()
        self.selectionChanged.emit()

    # -- sessions -------------------------------------------------------------------

    def new_session(self) -> None:
        if self.busy:
            self.stop()
        self.session_id = None
        self.history = []
        self.branches = None
        self._new_chat_disabled = []
        self.profile.reset()
        self.sessionOpened.emit("", [])

    def open_session(self, session_id: str) -> None:
        if self.busy:
            self.stop()
        try:
            self.branches = self.ctx.sessions.load_active_branch(session_id)
        except AssistaError as exc:
            self.errorOccurred.emit(str(exc))
            return
        self.history = list(self.branches.messages)
        self.session_id = session_id
        self.sessionOpened.emit(session_id, list(self.history))
        self.selectionChanged.emit()

    def _refresh_branches(self) -> None:
        if self.session_id is not None:
            with contextlib.suppress(AssistaError):
                self.branches = self.ctx.sessions.load_active_branch(self.session_id)

    def rename_session(self, session_id: str, title: str) -> None:
        self.ctx.sessions.rename_session(session_id, title.strip() or "New chat")
        self.sessionsChanged.emit()

    def delete_session(self, session_id: str) -> None:
        if session_id == self.session_id:
            self.new_session()
        self.ctx.sessions.delete_session(session_id)
        self.sessionsChanged.emit()

    # -- running a turn -------------------------------------------------------------

    def edit_and_resend(self, message_id: str, text: str) -> bool:
        """Send ``text`` as a new version of user message ``message_id``: a sibling
        branch; the original and its answers stay, reachable with ‹ n/m ›."""
        return self.send(text, branch_from=message_id)

    def regenerate(self, message_id: str) -> bool:
        """Answer again from before assistant message ``message_id`` (the first answer
        of its turn): the new answer becomes a sibling branch of the old one."""
        return self.send("", branch_from=message_id, regenerate=True)

    def step_branch(self, message_id: str, step: int) -> None:
        """Show the previous (-1) or next (+1) sibling of ``message_id``."""
        if self.busy or self.session_id is None:
            return
        try:
            branch = self.ctx.sessions.step_branch(self.session_id, message_id, step)
        except AssistaError as exc:
            self.errorOccurred.emit(str(exc))
            return
        self.history = list(branch.messages)
        self.branches = branch
        self.sessionOpened.emit(self.session_id, list(self.history))

    def branch_label(self, message_id: str) -> str | None:
        """"2/3" when the message has siblings in the shown conversation."""
        position = self.branches.position(message_id) if self.branches is not None else None
        return position.label if position is not None else None

    def send(self, text: str, attachments: Sequence[Part] = (), *,
             branch_from: str | None = None, regenerate: bool = False) -> bool:
        """Start a turn; returns False (and says why via a signal) if it cannot start."""
        if not (text.strip() or attachments or regenerate) or self.busy:
            return False
        if branch_from is not None and self.session_id is None:
            return False
        prepared = self._prepare_turn(attachments)
        if prepared is None:
            return False
        config, model, provider, tools = prepared
        self._executor = tools
        session_id = self._ensure_session(text, attachments, config, model)
        system = self.profile.system_prompt([s.name for s in tools.specs()])
        temperature = self.profile.temperature()
        orchestrator = self.ctx.build_orchestrator(provider, tools, self.settings,
                                                   self._ask_continue, config=config,
                                                   model=model)
        if branch_from is not None:
            try:
                self.history = self.ctx.sessions.start_branch(session_id, branch_from)
            except AssistaError as exc:
                self.errorOccurred.emit(str(exc))
                return False
            self.branches = None
            self.sessionOpened.emit(session_id, list(self.history))
        message: Message | None = None
        if not regenerate:
            message = Message(role="user", parts=[TextPart(text=text), *attachments])
            self.userMessageAdded.emit(message)

        async def turn() -> None:
            try:
                await run_turn(orchestrator, self.ctx.sessions, session_id, self.history,
                               message, model=model, system=system,
                               sink=self._sink, temperature=temperature)
            except asyncio.CancelledError:
                log.info("turn stopped by the user")
            except AssistaError as exc:
                self.errorOccurred.emit(str(exc))
            except Exception as exc:
                log.exception("turn failed")
                self.errorOccurred.emit(f"Unexpected error: {exc}")
            finally:
                with contextlib.suppress(Exception):
                    await provider.aclose()
                self._refresh_branches()
                self._running = False
                self.sessionsChanged.emit()
                self.busyChanged.emit(False)

        self._running = True
        self._task = asyncio.ensure_future(turn())
        self.busyChanged.emit(True)
        return True

    def _prepare_turn(self, attachments: Sequence[Part]) -> tuple[
            ProviderConfig, str, Provider, ToolRunner] | None:
        """Provider, model and tools for a turn, or None after saying what is missing."""
        config = self.provider()
        if config is None:
            self.providerMissing.emit()
            return None
        model = self.model()
        if not model:
            self.errorOccurred.emit(f"Choose a model for {config.name} first.")
            return None
        caps = self.ctx.capabilities_for(config, model)
        if any(isinstance(p, ImagePart) for p in attachments) and not caps.vision:
            self.errorOccurred.emit(
                f"{model} cannot see images. Pick a vision model, or turn on vision for "
                f"it in Providers if you know it supports images.")
            return None
        enabled = self.enabled_tools() if caps.tools else []
        try:
            provider = self.ctx.build_provider(
                config, on_retry=partial(self._provider_retrying, config.name))
            tools = self.ctx.build_tools(
                self.workspace(), enabled, registry=self.tools.registry(),
                settings=self.settings, approver=self.tools.approve,
                chat_grants=self.tools.chat_grants(self.session_id or "new"),
                on_progress=self.tools.progress)
        except AssistaError as exc:
            self.errorOccurred.emit(str(exc))
            return None
        return config, model, provider, tools

    def _provider_retrying(self, name: str, attempt: int, delay_s: float, reason: str) -> None:
        """The provider refused or failed before answering and is asked again."""
        self.statusMessage.emit(retry_text(name, attempt, delay_s, reason),
                                int((delay_s + 15) * 1000))

    def _ensure_session(self, text: str, attachments: Sequence[Part],
                        config: ProviderConfig, model: str) -> str:
        """The current chat's id, creating (and titling) the chat on its first message."""
        if self.session_id is not None:
            self.ctx.sessions.update_session(self.session_id, provider_id=config.id, model=model)
            return self.session_id
        names = [getattr(p, "name", None) or "attachment" for p in attachments]
        info = self.ctx.sessions.create_session(
            title=auto_title(text or " ".join(names)), provider_id=config.id,
            model=model, workspace=self.settings.workspace,
            system_prompt=self.profile.new_chat_prompt,
            assistant_id=self.profile.new_chat_assistant)
        self.session_id = info.id
        self.tools.adopt_new_chat_grants(info.id)
        if self._new_chat_disabled:
            self.ctx.sessions.update_session(
                info.id, extra={"disabled_tools": self._new_chat_disabled})
            self._new_chat_disabled = []
        self.sessionsChanged.emit()
        return info.id

    # -- tools ------------------------------------------------------------------------------

    def disabled_tools(self) -> list[str]:
        """Tools switched off for the current chat (kept with the session)."""
        if self.session_id:
            info = self.ctx.sessions.get_session(self.session_id)
            raw = (info.extra or {}).get("disabled_tools") if info is not None else None
            if isinstance(raw, list):
                return [str(n) for n in raw]
        return list(self._new_chat_disabled)

    def set_tool_enabled(self, name: str, enabled: bool) -> None:
        disabled = [n for n in self.disabled_tools() if n != name]
        if not enabled:
            disabled.append(name)
        if self.session_id:
            info = self.ctx.sessions.get_session(self.session_id)
            extra = dict(info.extra or {}) if info is not None else {}
            extra["disabled_tools"] = disabled
            self.ctx.sessions.update_session(self.session_id, extra=extra)
        else:
            self._new_chat_disabled = disabled
        self.toolsChanged.emit()

    def reset_new_chat_tools(self) -> None:
        """The chat not started yet gets every tool the app offers."""
        self._new_chat_disabled = []
        self.toolsChanged.emit()

    def available_tools(self) -> list[str]:
        return self.tools.available(self.settings, self.workspace())

    def enabled_tools(self) -> list[str]:
        return self.tools.enabled_for(self.settings, self.workspace(), self.disabled_tools())

    def cancel_tool(self, call_id: str) -> bool:
        """Cancel one running call (its result tells the model it was cancelled)."""
        cancel = getattr(self._executor, "cancel", None)
        return bool(cancel(call_id)) if cancel is not None else False

    def start_mcp(self) -> None:
        """(Re)start the MCP servers from settings in the background."""
        try:
            self._mcp_task = asyncio.ensure_future(self.tools.start_mcp(self.settings))
        except RuntimeError:
            log.info("no event loop: MCP servers not started")

    async def shutdown(self) -> None:
        self.stop()
        await self.wait_idle()
        await self.tools.stop_mcp()

    def _sink(self, event: AgentEvent) -> None:
        self.bridge(event)

    def stop(self) -> None:
        if self._confirm is not None and not self._confirm.done():
            self._confirm.set_result(False)
        for pending in list(self.tools.pending.values()):
            pending.resolve(ApprovalDecision.deny("The user stopped the answer."))
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def _ask_continue(self, rounds: int) -> bool:
        self._confirm = asyncio.get_running_loop().create_future()
        self.confirmRequested.emit(rounds)
        try:
            return await self._confirm
        finally:
            self._confirm = None

    def answer_confirm(self, proceed: bool) -> None:
        if self._confirm is not None and not self._confirm.done():
            self._confirm.set_result(proceed)

    async def wait_idle(self) -> None:
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
