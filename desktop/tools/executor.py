"""Run tool calls: look up, validate, approve, execute with a timeout, encode the result.

:class:`ToolExecutor` implements :class:`desktop.core.tooling.ToolRunner`. It
never raises for a tool failure: unknown tools, invalid arguments, denials, tool
errors, crashes and timeouts all become results the model can read. Only
cancellation of the run itself (Stop) propagates (``asyncio.CancelledError``);
a single call cancelled with :meth:`ToolExecutor.cancel` returns a ``cancelled``
result instead, so the other calls of the round go on.

Calls from one model message may run concurrently (the orchestrator gathers
them): reads run in parallel, while calls that write the same path take turns
on a per-path lock (:mod:`desktop.tools.locks`). Nothing runs while its approval
is pending.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from desktop import tools as tool_features
from desktop.core.errors import ToolError
from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.core.provider import ToolSpec
from desktop.tools.approval import (
    Approver,
    CallStatus,
    ChatGrants,
    Policy,
    ProgressSink,
    ToolProgress,
)
from desktop.tools.checkpoints import TurnCheckpoint
from desktop.tools.errors import error_fields
from desktop.tools.gate import NO_NETWORK, ApprovalGate
from desktop.tools.grants import GrantStore
from desktop.tools.locks import SHARED_PATH_LOCKS, PathLocks
from desktop.tools.registry import Tool, ToolContext, ToolRegistry
from desktop.tools.results import (
    DEFAULT_MAX_CHARS,
    ToolOutput,
    denied_content,
    error_content,
    success_content,
)
from desktop.tools.trust import ToolTrust
from desktop.tools.validation import validate_arguments
from desktop.tools.workspace import Workspace

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy

log = logging.getLogger(__name__)

# Room left in the result budget for the envelope and per-item metadata.
_ENVELOPE_RESERVE = 2_000


class _Running(msgspec.Struct):
    """A tool call running, and whether the user cancelled it."""

    task: asyncio.Task[ToolResultPart]
    cancelled_by_user: bool = False


class ToolExecutor:
    """Runs the enabled tools of a registry against one workspace (or none).

    ``enabled=None`` enables every registered tool; names in ``enabled`` that
    are not registered are ignored. ``max_result_chars`` caps the JSON text of
    every result. ``policies`` overrides tools' default approval policies by
    name; ``approver`` is awaited for calls whose policy is ``ask`` (None: such
    calls are denied); ``grants`` holds the persisted "always allow" grants and
    ``chat_grants`` the "allow for this chat" ones (pass the same object to
    every executor of a chat). ``on_progress`` receives status changes and live
    output. Tools whose policy is ``deny`` are not offered to the model.
    ``proxy`` is handed to tools that make HTTP requests (``fetch_url``) through
    their :class:`ToolContext`; None: they use httpx's defaults.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        workspace: Workspace | None,
        enabled: set[str] | None = None,
        timeout_s: float = 60.0,
        *,
        max_result_chars: int = DEFAULT_MAX_CHARS,
        policies: Mapping[str, Policy] | None = None,
        approver: Approver | None = None,
        grants: GrantStore | None = None,
        chat_grants: ChatGrants | None = None,
        on_progress: ProgressSink | None = None,
        locks: PathLocks | None = None,
        proxy: Proxy | None = None,
        trust: ToolTrust | None = None,
        checkpoint: TurnCheckpoint | None = None,  # files kept before writes, for undo
        origin: str | None = None,  # the chat the calls are made for (ToolContext.origin)
    ) -> None:
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        self.registry = registry
        self.workspace = workspace
        self.enabled = None if enabled is None else set(enabled)
        self.timeout_s = timeout_s
        self.max_result_chars = max_result_chars
        self.gate = ApprovalGate(
            policies=policies, approver=approver, grants=grants, chat_grants=chat_grants
        )
        self.on_progress = on_progress
        self.locks = locks if locks is not None else SHARED_PATH_LOCKS
        self.proxy = proxy
        self.trust = trust or ToolTrust()
        self.checkpoint = checkpoint
        self.origin = origin
        self._running: dict[str, _Running] = {}
        if self.enabled is not None:
            unknown = sorted(self.enabled - set(registry.names()))
            if unknown:
                log.warning("enabled tools not in the registry, ignored: %s", ", ".join(unknown))

    # -- what the model sees ------------------------------------------------------------

    def enabled_names(self) -> list[str]:
        """The names of the tools the model may call, in registry order."""
        return [
            tool.name
            for tool in self.registry
            if (self.enabled is None or tool.name in self.enabled)
            and self.gate.policy_for(tool) != "deny"
        ]

    def specs(self) -> list[ToolSpec]:
        names = set(self.enabled_names())
        return [tool.spec() for tool in self.registry if tool.name in names]

    def policy_for(self, name: str) -> Policy | None:
        """The effective policy of a registered tool (None if there is no such tool)."""
        tool = self.registry.get(name)
        return None if tool is None else self.gate.policy_for(tool)

    def _tool(self, name: str) -> Tool | None:
        if self.enabled is not None and name not in self.enabled:
            return None
        return self.registry.get(name)

    # -- cancelling single calls --------------------------------------------------------

    def cancel(self, call_id: str) -> bool:
        """Cancel one call (waiting for approval or running); its result says ``cancelled``.

        Returns False when no call with that id is in flight.
        """
        running = self._running.get(call_id)
        if running is None or running.task.done():
            return False
        running.cancelled_by_user = True
        running.task.cancel()
        return True

    def in_flight(self) -> list[str]:
        """Ids of the calls waiting for approval or running."""
        return [cid for cid, r in self._running.items() if not r.task.done()]

    # -- running ------------------------------------------------------------------------

    async def run(self, call: ToolCallPart) -> ToolResultPart:
        started = time.monotonic()
        tool = self._tool(call.name)
        if tool is None:
            available = self.enabled_names()
            listing = ", ".join(available) if available else "none"
            return self._error(
                call,
                started,
                {
                    "code": "unknown_tool",
                    "message": f"There is no tool named '{call.name}'. Available tools: {listing}.",
                    "available_tools": available,
                },
            )
        try:
            args = validate_arguments(call.arguments, tool.validator, tool_name=tool.name)
        except ToolError as exc:
            return self._error(call, started, error_fields(exc))

        inner = asyncio.create_task(self._process(tool, call, args, started))
        running = _Running(inner)
        previous = self._running.get(call.id)
        self._running[call.id] = running
        try:
            await asyncio.wait({inner})
        except asyncio.CancelledError:  # Stop: cancel the call and let it clean up
            inner.cancel()
            await asyncio.wait({inner})
            raise
        finally:
            if self._running.get(call.id) is running:
                if previous is not None and not previous.task.done():
                    self._running[call.id] = previous
                else:
                    del self._running[call.id]
        if inner.cancelled():
            return self._cancelled(call, started)
        return inner.result()

    async def _process(
        self, tool: Tool, call: ToolCallPart, args: dict[str, Any], started: float
    ) -> ToolResultPart:
        ctx = ToolContext(
            workspace=self.workspace,
            call_id=call.id,
            result_budget=max(self.max_result_chars - _ENVELOPE_RESERVE, 1_000),
            default_timeout_s=self.timeout_s,
            proxy=self.proxy,
            trust=self.gate.trust_for(self.trust),
            origin=self.origin,
            on_output=lambda text, stream: self._emit(
                ToolProgress(call.id, call.name, "output", text, stream)
            ),
            on_progress=lambda done, total, message: self._emit(
                ToolProgress(call.id, call.name, "progress", message or _fraction(done, total),
                             done=done, total=total)
            ),
        )
        try:
            verdict = self.gate.verdict(tool, args, self.workspace)
            if verdict == "deny":
                return self._denied(
                    call,
                    started,
                    None,
                    f"The tool '{tool.name}' is set to Deny in Assista's settings, so the call "
                    "was not run. Do not call it again; tell the user if you need it.",
                )
            network = self.gate.wants_network(tool, args, ctx.trust)
            if verdict == "ask" or network:
                if verdict == "ask":
                    self._status(call, "awaiting_approval")
                try:
                    preview = await self.gate.preview(tool, args, ctx, self.timeout_s)
                except ToolError as exc:
                    return self._error(call, started, error_fields(exc))
                # (an unsandboxed command has the network anyway: nothing to ask about it)
                network = network and preview.confinement == "sandboxed_offline"
            if verdict == "ask" or network:
                if self.gate.approver is None:
                    return self._denied(call, started, None,
                                        NO_NETWORK if network else _NOBODY_TO_ASK)
                if verdict != "ask":
                    self._status(call, "awaiting_approval")
                decision = await self.gate.ask(tool, call, args, preview, self.workspace,
                                               network=network)
                if not decision.allowed:
                    return self._denied(
                        call, started, decision.reason, _denied_message(decision.reason)
                    )
                ctx.trust = self.gate.trust_for(self.trust, once=network)
                started = time.monotonic()  # the duration is the run, not the wait
            try:
                paths = self._lock_paths(tool, args)
            except ToolError as exc:
                return self._error(call, started, error_fields(exc))
            self._status(call, "running")
            space = self.workspace.root if tool.changes_workspace and self.workspace else None
            async with self.locks.hold(paths), \
                    tool_features.guard_writes(self.checkpoint, call.id, paths), \
                    tool_features.guard_workspace(self.checkpoint, call.id, space):
                result = await self._invoke(tool, args, ctx)
        except ToolError as exc:
            return self._error(call, started, error_fields(exc))
        finally:
            ctx.cancel_event.set()  # stop any worker thread still running for this call
        return self._success(call, tool, started, result)

    def _lock_paths(self, tool: Tool, args: dict[str, Any]) -> list[str]:
        if self.workspace is None:
            return []
        return [str(self.workspace.resolve(p)) for p in tool.paths_written(args)]

    async def _invoke(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Any:
        """Await the handler under the timeout; every failure becomes a ToolError."""
        limit = tool.timeout_s or self.timeout_s
        timer = asyncio.timeout(limit)
        try:
            async with timer:
                return await tool.handler(args, ctx)
        except ToolError:
            raise
        except TimeoutError as exc:
            if not timer.expired():
                log.exception("tool %s raised TimeoutError", tool.name)
                raise ToolError(
                    f"The tool failed: {_describe(exc, 'timed out')}", code="internal_error"
                ) from exc
            raise ToolError(
                f"The tool did not finish within {limit:g} seconds and was stopped.",
                code="timeout",
            ) from None
        except Exception as exc:
            log.exception("tool %s failed", tool.name)
            raise ToolError(
                f"The tool failed with an unexpected error: {_describe(exc)}",
                code="internal_error",
            ) from exc

    # -- progress -----------------------------------------------------------------------

    def _status(self, call: ToolCallPart, status: CallStatus) -> None:
        self._emit(ToolProgress(call.id, call.name, "status", status))

    def _emit(self, progress: ToolProgress) -> None:
        if self.on_progress is None:
            return
        try:
            self.on_progress(progress)
        except Exception:  # a broken sink must not break the call
            log.exception("tool progress sink failed")

    # -- results ------------------------------------------------------------------------

    def _success(
        self, call: ToolCallPart, tool: Tool, started: float, result: Any
    ) -> ToolResultPart:
        provider_data: dict[str, Any] = {}
        if isinstance(result, ToolOutput):
            provider_data = result.provider_data
            result = result.result
        try:
            content = success_content(result, self.max_result_chars)
        except (TypeError, ValueError) as exc:
            log.error("tool %s returned a result that is not JSON: %s", tool.name, exc)
            return self._error(
                call,
                started,
                {"code": "internal_error", "message": f"The tool returned a bad result: {exc}"},
            )
        return ToolResultPart(
            tool_call_id=call.id,
            name=call.name,
            content=content,
            is_error=False,
            status="succeeded",
            duration_s=time.monotonic() - started,
            provider_data=provider_data,
        )

    def _error(self, call: ToolCallPart, started: float, error: dict[str, Any]) -> ToolResultPart:
        try:
            content = error_content(error, self.max_result_chars)
        except (TypeError, ValueError):  # extra detail that JSON cannot hold: drop it
            basic = {"code": str(error.get("code")), "message": str(error.get("message"))}
            content = error_content(basic, self.max_result_chars)
        return ToolResultPart(
            tool_call_id=call.id,
            name=call.name,
            content=content,
            is_error=True,
            status="failed",
            duration_s=time.monotonic() - started,
        )

    def _denied(
        self, call: ToolCallPart, started: float, reason: str | None, message: str
    ) -> ToolResultPart:
        return ToolResultPart(
            tool_call_id=call.id,
            name=call.name,
            content=denied_content(reason, message, self.max_result_chars),
            is_error=True,
            status="denied",
            duration_s=time.monotonic() - started,
        )

    def _cancelled(self, call: ToolCallPart, started: float) -> ToolResultPart:
        content = error_content(
            {"code": "cancelled", "message": "The user cancelled this tool call."},
            self.max_result_chars,
        )
        return ToolResultPart(
            tool_call_id=call.id,
            name=call.name,
            content=content,
            is_error=True,
            status="cancelled",
            duration_s=time.monotonic() - started,
        )


_NOBODY_TO_ASK = (
    "This tool needs the user's approval and no one can approve it in this session (for "
    "example a non-interactive run), so the call was not run."
)


def _denied_message(reason: str | None) -> str:
    text = "The user denied this tool call, so it was not run."
    if reason:
        text += f" Their reason: {reason}"
    return text + " Do not repeat the same call; adjust your approach or ask the user."


def _describe(exc: BaseException, default: str = "") -> str:
    text = str(exc) or default
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


def _fraction(done: float, total: float | None) -> str:
    return f"{done:g}/{total:g}" if total is not None else f"{done:g}"
