"""The agent loop: request, stream, accumulate, run tools, feed results back, repeat.

The loop ends when the model answers without tool calls, when the user stops it,
when the provider fails, or at the tool-round limit (Stop, or Confirm: ask the user
whether to continue). ``max_iterations`` is a hard guard on model requests made
since the user last confirmed; it protects against a loop that never converges.

Events go to a synchronous ``sink`` callable; the caller decides what to do with them
(emit Qt signals, print, persist). Cancelling the task that awaits :meth:`run`
keeps the partial answer, marks it ``stopped`` and still reports
:class:`AssistantFinished` and :class:`RunFinished` before the cancellation propagates.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

import msgspec

from desktop.core.accumulator import MessageBuilder
from desktop.core.agent_events import (
    AgentEvent,
    AssistantFinished,
    AssistantStarted,
    ContextTrimmed,
    LimitReached,
    RunFinished,
    RunStatus,
    ToolResultsMessage,
    ToolRunFinished,
    ToolRunStarted,
)
from desktop.core.context_budget import (
    SUMMARY_INSTRUCTION,
    OverflowPolicy,
    fit_to_window,
    repair_tool_pairs,
    summary_message,
    summary_source,
)
from desktop.core.error_codes import ERROR_KEY, ErrorInfo, stored_error
from desktop.core.errors import ProviderError
from desktop.core.events import EndEvent, ErrorEvent, TextDelta
from desktop.core.messages import Message, ToolCallPart, ToolResultPart, Usage
from desktop.core.provider import ChatRequest, Provider, RequestOrigin
from desktop.core.provider_options import RequestOptions
from desktop.core.settings import AgentSettings
from desktop.core.tooling import ToolRunner

log = logging.getLogger(__name__)

Sink = Callable[[AgentEvent], None]
ConfirmContinue = Callable[[int], Awaitable[bool]]


class RunResult(msgspec.Struct):
    """What a run of the agent loop ended with: status, new messages, usage, error."""

    status: RunStatus
    new_messages: list[Message] = msgspec.field(default_factory=list)
    usage: Usage = msgspec.field(default_factory=Usage)
    error: str | None = None
    error_info: ErrorInfo | None = None  # its code + params (desktop.core.error_codes)

    @property
    def text(self) -> str:
        """The text of the last assistant message (the final answer)."""
        for message in reversed(self.new_messages):
            if message.role == "assistant":
                return message.text
        return ""


class _Run(msgspec.Struct):
    """The state of one :meth:`Orchestrator.run` call."""

    history: list[Message]
    result: RunResult
    emit: Sink
    model: str
    system: str | None
    temperature: float | None
    origin: RequestOrigin = msgspec.field(default_factory=RequestOrigin)  # of the request made now
    trim_notice: str | None = None
    summary: tuple[int, str] | None = None  # (messages summarized, summary text)


class _StreamFailed(Exception):
    def __init__(self, message: str, info: ErrorInfo | None) -> None:
        super().__init__(message)
        self.message = message
        self.info = info


class Orchestrator:
    def __init__(
        self,
        provider: Provider,
        tools: ToolRunner,
        settings: AgentSettings | None = None,
        *,
        confirm_continue: ConfirmContinue | None = None,
        request_options: RequestOptions | None = None,
        context_window: int | None = None,
        overflow: OverflowPolicy = "drop",
    ) -> None:
        """``request_options``: the provider's request defaults, applied to every
        request (the one route by which they reach the adapter)."""
        self.provider = provider
        self.tools = tools
        self.settings = settings or AgentSettings()
        self.confirm_continue = confirm_continue
        self.request_options = request_options or RequestOptions()
        self.context_window = context_window
        self.overflow = overflow

    async def run(
        self,
        history: list[Message],
        *,
        model: str,
        system: str | None = None,
        sink: Sink | None = None,
        temperature: float | None = None,
        session_id: str | None = None,
    ) -> RunResult:
        """Run the loop on ``history`` (ending with the new user message).

        New assistant and tool messages are appended to ``history`` as they complete.
        ``session_id``: the chat the requests are made for (each request carries it and
        the answer's message id: the request inspector files its record under them).
        """
        emit: Sink = sink or (lambda _event: None)
        result = RunResult(status="complete")
        run = _Run(history, result, emit, model, system, temperature,
                   RequestOrigin(session_id))
        rounds_since_confirm = 0
        requests_since_confirm = 0
        round_no = 0
        try:
            while True:
                if requests_since_confirm >= self.settings.max_iterations:
                    result.status = "error"
                    result.error = (
                        f"Stopped after {self.settings.max_iterations} model requests "
                        "without a final answer (iteration limit)."
                    )
                    break
                requests_since_confirm += 1
                round_no += 1
                message = await self._one_request(run, round_no)
                if message.status != "complete" or not message.tool_calls:
                    if message.status == "error":
                        result.status = "error"
                        result.error = message.error
                        result.error_info = stored_error(message)
                    break
                await self._run_tools(run, message, round_no)
                rounds_since_confirm += 1
                if rounds_since_confirm >= self.settings.tool_round_limit:
                    if not await self._may_continue(rounds_since_confirm, emit):
                        result.status = "limit"
                        break
                    rounds_since_confirm = 0
                    requests_since_confirm = 0
        except asyncio.CancelledError:
            result.status = "stopped"
            emit(RunFinished(status="stopped", usage=result.usage))
            raise
        emit(RunFinished(status=result.status, usage=result.usage, error=result.error,
                         info=result.error_info))
        return result

    async def _may_continue(self, rounds: int, emit: Sink) -> bool:
        ask = self.settings.limit_behavior == "confirm" and self.confirm_continue is not None
        emit(LimitReached(rounds=rounds, will_ask=ask))
        if not ask or self.confirm_continue is None:
            return False
        return await self.confirm_continue(rounds)

    async def _one_request(self, run: _Run, round_no: int) -> Message:
        builder = MessageBuilder(model=run.model, provider=self.provider.name)
        run.emit(AssistantStarted(message_id=builder.id, round=round_no, model=run.model,
                                  snapshot=builder.snapshot))
        run.origin = RequestOrigin(run.origin.session_id, builder.id)
        specs = self.tools.specs() if self.provider.supports_tools else []
        messages, system = await self._fit(run)
        request = ChatRequest(model=run.model, messages=messages, system=system, tools=specs,
                              origin=run.origin)
        self.request_options.apply(request)
        if run.temperature is not None:
            request.temperature = run.temperature
        ended: list[EndEvent] = []
        try:
            end = await self._consume(request, builder, run.emit, ended)
        except asyncio.CancelledError:
            if ended and not builder.tool_calls:
                # Stopped while the stream closed after its end: the answer is whole
                # (its calls, if any, would not be run: then it is stopped).
                self._close(run, builder, builder.finish(
                    "complete", finish_reason=ended[0].finish_reason,
                    provider_data=dict(ended[0].provider_data)))
            else:
                self._close(run, builder, builder.finish("stopped", finish_reason="cancelled"))
            raise
        except _StreamFailed as failed:
            data = dict(builder.message.provider_data)
            if failed.info is not None:  # (worded again in the user's language when shown)
                data[ERROR_KEY] = failed.info.to_json()
            return self._close(run, builder, builder.finish("error", error=failed.message,
                                                            provider_data=data))
        return self._close(run, builder, builder.finish(
            "complete", finish_reason=end.finish_reason, provider_data=dict(end.provider_data)))

    async def _fit(self, run: _Run) -> tuple[list[Message], str | None]:
        """The history to send: every tool call paired with a result, the oldest turns
        left out (or summarized) when it would not fit the context window."""
        history = repair_tool_pairs(run.history)
        fit = fit_to_window(history, context_window=self.context_window,
                            max_output_tokens=self.request_options.max_tokens,
                            system=run.system, policy=self.overflow)
        system = run.system
        if fit.trimmed and self.overflow == "summarize":
            if run.summary is None or run.summary[0] != len(fit.dropped):
                run.summary = (len(fit.dropped), await self._summarize(run, fit.dropped))
            if run.summary[1]:
                system = f"{system or ''}\n\n{summary_message(run.summary[1]).text}".strip()
        notice = fit.notice()
        if notice and notice != run.trim_notice:
            run.trim_notice = notice
            run.emit(ContextTrimmed(dropped=len(fit.dropped), notice=notice))
        return fit.messages, system

    async def _summarize(self, run: _Run, dropped: list[Message]) -> str:
        request = ChatRequest(model=run.model, system=SUMMARY_INSTRUCTION,
                              messages=[Message.user(summary_source(dropped))],
                              origin=run.origin)
        parts: list[str] = []
        try:
            async with contextlib.aclosing(self.provider.stream(request)) as stream:
                async for event in stream:
                    if isinstance(event, TextDelta):
                        parts.append(event.text)
                    elif isinstance(event, ErrorEvent):
                        log.warning("summary failed: %s", event.message)
                        return ""
        except ProviderError as err:
            log.warning("summary failed: %s", err)
            return ""
        return "".join(parts).strip()

    @staticmethod
    def _close(run: _Run, builder: MessageBuilder, message: Message) -> Message:
        if builder.usage is not None:
            run.result.usage = run.result.usage + builder.usage
        if message.tool_calls and message.status != "complete":
            # Unanswered calls would make the next request invalid: drop them.
            message = message.model_copy(update={"parts": [
                p for p in message.parts if not isinstance(p, ToolCallPart)]})
        run.history.append(message)
        run.result.new_messages.append(message)
        run.emit(AssistantFinished(message=message))
        return message

    async def _consume(self, request: ChatRequest, builder: MessageBuilder,
                       emit: Sink, ended: list[EndEvent]) -> EndEvent:
        """The stream's end (its EndEvent, also put in ``ended`` as soon as it comes)."""
        end = EndEvent("stop")
        try:
            async with contextlib.aclosing(self.provider.stream(request)) as stream:
                async for event in stream:
                    if isinstance(event, ErrorEvent):
                        emit(event)
                        raise _StreamFailed(event.message, event.info)
                    if isinstance(event, EndEvent):
                        end = event
                        ended.append(event)
                        continue
                    builder.feed(event)
                    emit(event)
        except ProviderError as err:
            raise _StreamFailed(str(err), err.info) from err
        return end

    async def _run_tools(self, run: _Run, message: Message, round_no: int) -> None:
        emit = run.emit
        # A sink that saves (SessionRecorder) stores the calls before they run: a crash
        # while a tool runs must not leave side effects with no record of the call.
        settled = getattr(emit, "settled", None)
        if settled is not None:
            await settled()
        calls = message.tool_calls
        results: list[ToolResultPart | None] = [None] * len(calls)

        async def run_one(i: int, call: ToolCallPart) -> None:
            emit(ToolRunStarted(call=call, round=round_no, message_id=message.id))
            started = time.monotonic()
            try:
                part = await self.tools.run(call)
            except asyncio.CancelledError:
                part = _cancelled(call, time.monotonic() - started)
                results[i] = part
                emit(ToolRunFinished(result=part, round=round_no))
                raise
            except Exception as exc:  # a runner bug must not kill the conversation
                log.exception("tool runner failed for %s", call.name)
                part = ToolResultPart(tool_call_id=call.id, name=call.name, is_error=True,
                                      status="failed", content=f"Tool runner error: {exc}")
            if part.duration_s is None:
                part = part.model_copy(update={"duration_s": time.monotonic() - started})
            results[i] = part
            emit(ToolRunFinished(result=part, round=round_no))

        try:
            async with asyncio.TaskGroup() as group:
                for i, call in enumerate(calls):
                    group.create_task(run_one(i, call))
        except asyncio.CancelledError:
            self._append_results(run, calls, results)
            raise
        self._append_results(run, calls, results)

    @staticmethod
    def _append_results(run: _Run, calls: list[ToolCallPart],
                        results: list[ToolResultPart | None]) -> None:
        parts = [r if r is not None else _cancelled(c, 0.0)
                 for c, r in zip(calls, results, strict=True)]
        tool_message = Message(role="tool", parts=list(parts))
        run.history.append(tool_message)
        run.result.new_messages.append(tool_message)
        run.emit(ToolResultsMessage(message=tool_message))


def _cancelled(call: ToolCallPart, duration: float) -> ToolResultPart:
    return ToolResultPart(
        tool_call_id=call.id,
        name=call.name,
        content='{"status": "error", "error": {"code": "cancelled", '
        '"message": "The user stopped this tool call."}}',
        is_error=True,
        status="cancelled",
        duration_s=duration,
    )
