"""Turns the orchestrator's event stream into Qt signals that widgets observe."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from desktop.chat.events import ServerQuestionAsked, ServerQuestionClosed
from desktop.core.agent_events import (
    AgentEvent,
    AssistantFinished,
    AssistantStarted,
    ContextTrimmed,
    LimitReached,
    RunFinished,
    ToolResultsMessage,
    ToolRunFinished,
    ToolRunStarted,
)
from desktop.core.events import (
    ErrorEvent,
    ReasoningDelta,
    TextDelta,
    ToolCallStarted,
    UsageEvent,
)
from desktop.ui.error_text import error_text


class AgentBridge(QObject):
    """A sink for :class:`~desktop.core.orchestrator.Orchestrator` that emits signals.

    Every signal carries plain Python objects from :mod:`desktop.core`; widgets read
    them and never touch the loop.
    """

    assistantStarted = Signal(object)  # AssistantStarted
    textDelta = Signal(str)
    reasoningDelta = Signal(str)
    toolCallStreaming = Signal(object)  # ToolCallStarted (model is still writing arguments)
    toolRunStarted = Signal(object)  # ToolRunStarted
    toolRunFinished = Signal(object)  # ToolRunFinished
    toolResults = Signal(object)  # ToolResultsMessage
    assistantFinished = Signal(object)  # AssistantFinished
    usage = Signal(object)  # Usage
    streamError = Signal(str)
    limitReached = Signal(object)  # LimitReached
    runFinished = Signal(object)  # RunFinished
    toolProgress = Signal(object)  # desktop.tools.approval.ToolProgress (status / live output)
    approvalRequested = Signal(object)  # PendingApproval: show it, then call .resolve()
    contextTrimmed = Signal(str)  # a sentence telling the user what was left out
    approvalClosed = Signal(str)  # call id: the request went away (Stop, cancel, answered)
    retrying = Signal(object)  # desktop.chat.events.ProviderRetrying (the chat on screen)
    serverQuestion = Signal(object)  # desktop.chat.server_questions.PendingQuestion
    serverQuestionClosed = Signal(str)  # its id: answered, or the turn ended
    queued = Signal(bool)  # the chat on screen waits for a provider slot (False: got one)
    research = Signal(object)  # desktop.chat.research.progress.ResearchProgress

    def __call__(  # noqa: C901 - a flat dispatch table
            self, event: AgentEvent | ServerQuestionAsked | ServerQuestionClosed) -> None:
        if isinstance(event, TextDelta):
            self.textDelta.emit(event.text)
        elif isinstance(event, ReasoningDelta):
            self.reasoningDelta.emit(event.text)
        elif isinstance(event, AssistantStarted):
            self.assistantStarted.emit(event)
        elif isinstance(event, ToolCallStarted):
            self.toolCallStreaming.emit(event)
        elif isinstance(event, ToolRunStarted):
            self.toolRunStarted.emit(event)
        elif isinstance(event, ToolRunFinished):
            self.toolRunFinished.emit(event)
        elif isinstance(event, ToolResultsMessage):
            self.toolResults.emit(event)
        elif isinstance(event, AssistantFinished):
            self.assistantFinished.emit(event)
        elif isinstance(event, UsageEvent):
            self.usage.emit(event.usage)
        elif isinstance(event, ErrorEvent):
            self.streamError.emit(error_text(event.info, event.message))
        elif isinstance(event, LimitReached):
            self.limitReached.emit(event)
        elif isinstance(event, RunFinished):
            self.runFinished.emit(event)
        elif isinstance(event, ContextTrimmed):
            self.contextTrimmed.emit(event.notice)
        elif isinstance(event, ServerQuestionAsked):
            self.serverQuestion.emit(event.question)
        elif isinstance(event, ServerQuestionClosed):
            self.serverQuestionClosed.emit(event.question_id)
