"""Assembling what the model is sent: the system prompt and the history (pure).

The system prompt is built in layers, like the reference agents do:

1. the base prompt — the chat's own system prompt when it has one, else its
   assistant's, else the app's default (``AppSettings.system_prompt``);
2. the chat's project: its instructions and small files (desktop.projects.context);
3. the user's custom instructions (who they are, how they like answers);
4. context: the workspace folder and what the tools can do there, and today's date;
5. the skills the model may load (their names and descriptions only).

The memories a chat may see (:mod:`desktop.storage.memories`) follow, each marked
``<memory>…</memory>`` under a line saying what they are (:func:`with_memories`).

System messages inside the history that follow one another are collapsed
into one (several ``system`` messages in a row are rejected or mishandled by
some providers); those at the very start are folded into the system prompt.
:func:`prepare_request` does all of it and then fits the result into the
context window (see :mod:`desktop.core.context_budget`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import msgspec

from desktop.core.context_budget import (
    BudgetResult,
    OverflowPolicy,
    fit_to_window,
    repair_tool_pairs,
)
from desktop.core.messages import Message, TextPart


class PromptSources(msgspec.Struct, frozen=True):
    """The parts the system prompt is built from, one per layer (see the module)."""

    default: str = ""  # AppSettings.system_prompt
    assistant: str | None = None  # Assistant.system_prompt of the chat's assistant
    session: str | None = None  # SessionInfo.system_prompt (None: inherit)
    custom_instructions: str = ""  # AppSettings.custom_instructions
    workspace: str | None = None  # the chat's workspace folder
    tools: Sequence[str] = msgspec.field(default_factory=tuple)  # enabled tool names
    today: date | None = None  # None: no date line
    project: str = ""  # the chat's project's section (desktop.projects.context)
    skills: str = ""  # the skills the model may load (desktop.skills.catalog)


def base_prompt(default: str, assistant: str | None = None, session: str | None = None) -> str:
    """The chat's own prompt if set (even empty), else the assistant's if not blank,
    else the default."""
    if session is not None:
        return session.strip()
    if assistant is not None and assistant.strip():
        return assistant.strip()
    return default.strip()


def workspace_context(workspace: str | None, tools: Sequence[str] = ()) -> str:
    if not workspace:
        return ""
    text = f"The user's workspace folder is {workspace}."
    if tools:
        text += (
            f" The tools {', '.join(tools)} work inside it; give them paths relative "
            "to this folder."
        )
    return text


MEMORY_HEADING = ("Memories: facts the user chose to keep from earlier chats (each one is "
                  "a saved memory; use them when they are relevant, do not list them):")


def memory_section(memories: Sequence[str]) -> str:
    """The memories a chat is told, each marked as a memory."""
    return "\n".join([MEMORY_HEADING, *(f"<memory>{text}</memory>" for text in memories)])


def with_memories(system: str | None, memories: Sequence[str]) -> str | None:
    """``system`` with the memories after it (unchanged without memories)."""
    if not memories:
        return system
    return "\n\n".join(s for s in ((system or "").strip(), memory_section(memories)) if s)


def build_system_prompt(sources: PromptSources) -> str | None:
    """The layered system prompt, or ``None`` when every layer is empty."""
    sections = [base_prompt(sources.default, sources.assistant, sources.session),
                sources.project.strip()]
    instructions = sources.custom_instructions.strip()
    if instructions:
        sections.append(f"The user's custom instructions:\n{instructions}")
    context = [workspace_context(sources.workspace, sources.tools)]
    if sources.today is not None:
        context.append(f"Today is {sources.today.isoformat()}.")
    sections.append(" ".join(c for c in context if c))
    sections.append(sources.skills.strip())
    text = "\n\n".join(s for s in sections if s)
    return text or None


def collapse_system_messages(messages: Sequence[Message]) -> list[Message]:
    """Merge each run of consecutive system messages into the first of the run."""
    out: list[Message] = []
    for message in messages:
        if message.role == "system" and out and out[-1].role == "system":
            merged = _join(out[-1].text, message.text)
            out[-1] = out[-1].model_copy(update={"parts": [TextPart(text=merged)]})
        else:
            out.append(message)
    return out


def assemble(system: str | None, history: Sequence[Message]) -> tuple[str | None, list[Message]]:
    """Fold leading system messages into ``system``; collapse the others."""
    messages = collapse_system_messages(history)
    if messages and messages[0].role == "system":
        system = _join(system or "", messages[0].text) or None
        messages = messages[1:]
    return system, messages


class PreparedRequest(msgspec.Struct, frozen=True):
    """What the model is sent: the system prompt and the messages that fit."""

    system: str | None
    messages: list[Message]
    budget: BudgetResult


def prepare_request(
    sources: PromptSources,
    history: Sequence[Message],
    *,
    context_window: int | None = None,
    max_output_tokens: int | None = None,
    policy: OverflowPolicy = "drop",
) -> PreparedRequest:
    """System prompt + a history that is safe to send (tool calls paired) and fits."""
    system, messages = assemble(build_system_prompt(sources), repair_tool_pairs(history))
    budget = fit_to_window(
        messages,
        context_window=context_window,
        max_output_tokens=max_output_tokens,
        system=system,
        policy=policy,
    )
    return PreparedRequest(system, budget.messages, budget)


def _join(first: str, second: str) -> str:
    return "\n\n".join(t for t in (first.strip(), second.strip()) if t)
