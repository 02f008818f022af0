"""What a research run asks its model, how it reads the answers, and the report's
end matter (the numbered source list), or a partial report written without the model.

The model answers the plan and "what next?" in plain lines (``STEP:``, ``QUERY:``,
``DONE``): small local models manage that where a JSON schema often fails.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from desktop.chat.research.gather import Finding
from desktop.chat.research.progress import StopReason

__all__ = ["Plan", "cited", "next_prompt", "parse_plan", "parse_queries", "partial_report",
           "plan_prompt", "report_prompt", "source_list", "unknown_citations"]

MAX_PLAN_STEPS = 8
_CITATION = re.compile(r"\[(\d{1,3})\]")
_LINE = re.compile(r"^\s*(?:[-*\d.)]+\s*)?(STEP|QUERY)\s*[:：]\s*(.+?)\s*$", re.IGNORECASE)
#: How a report says why the research stopped early (it is the answer's own text).
STOP_NOTES: dict[str, str] = {
    "rounds": "The research stopped at its limit of {rounds} search rounds.",
    "time": "The research stopped at its time limit of {minutes} minutes.",
    "cost": "The research stopped at its cost ceiling of ${cost}; no further model "
            "requests were made.",
    "stopped": "The research was stopped before it finished.",
}


class Plan(msgspec.Struct, frozen=True):
    """A research plan: the steps to take and the web searches that start it."""

    steps: tuple[str, ...]
    queries: tuple[str, ...]


def plan_prompt(question: str, queries: int) -> str:
    return (
        "You are planning a piece of research. Question:\n\n"
        f"{question}\n\n"
        "Reply with a short plan, one step per line starting with 'STEP:', then at most "
        f"{queries} web search queries that start the research, one per line starting "
        "with 'QUERY:'. Nothing else.")


def parse_plan(text: str, question: str, limit: int) -> Plan:
    """The steps and queries of the model's plan; the question itself is the query
    when the model gave none."""
    steps, queries = _lines(text)
    if not queries:
        queries = [" ".join(question.split())[:200]]
    return Plan(tuple(steps[:MAX_PLAN_STEPS]), tuple(queries[:limit]))


def parse_queries(text: str, done: Sequence[str], limit: int) -> list[str]:
    """New queries in the model's "what next?" answer (none: it has enough)."""
    _steps, queries = _lines(text)
    old = {q.casefold() for q in done}
    return [q for q in dict.fromkeys(queries) if q.casefold() not in old][:limit]


def _lines(text: str) -> tuple[list[str], list[str]]:
    steps: list[str] = []
    queries: list[str] = []
    for line in text.splitlines():
        match = _LINE.match(line)
        if match:
            (steps if match.group(1).upper() == "STEP" else queries).append(match.group(2))
    return steps, queries


def _digest(findings: Sequence[Finding], chars: int) -> str:
    return "\n\n".join(f"[{f.n}] {f.title} ({f.where})\n{f.text[:chars].strip()}"
                       for f in findings)


def next_prompt(question: str, plan: Plan, queries: Sequence[str],
                findings: Sequence[Finding], limit: int) -> str:
    steps = "\n".join(f"- {s}" for s in plan.steps) or "(none)"
    made = "\n".join(f"- {q}" for q in queries)
    return (
        f"Research question:\n\n{question}\n\nPlan:\n{steps}\n\nSearches made:\n{made}\n\n"
        f"What was found so far:\n\n{_digest(findings, 600) or '(nothing yet)'}\n\n"
        f"If more searching would help answer the question, reply with at most {limit} "
        "new web search queries, one per line starting with 'QUERY:'. If what was found "
        "is enough, reply with the single word DONE.")


def report_prompt(question: str, findings: Sequence[Finding], page_chars: int) -> str:
    return (
        f"Write a research report that answers this question:\n\n{question}\n\n"
        "Use only the numbered sources below. Cite the sources of every statement with "
        "their numbers in square brackets, like [1] or [2][3]. Say where the sources do "
        "not answer something. Do not add a list of sources at the end: it is added for "
        f"you.\n\nSources:\n\n{_digest(findings, page_chars)}")


def cited(text: str, findings: Sequence[Finding]) -> list[Finding]:
    """The findings ``text`` cites, in number order (all of them when it cites none)."""
    numbers = {int(m.group(1)) for m in _CITATION.finditer(text)}
    chosen = [f for f in findings if f.n in numbers]
    return chosen or list(findings)


def unknown_citations(text: str, findings: Sequence[Finding]) -> str:
    """A note naming the citations of ``text`` that match no finding ("" : none)."""
    known = {f.n for f in findings}
    wrong = sorted({int(m.group(1)) for m in _CITATION.finditer(text)} - known)
    if not wrong:
        return ""
    cites = ", ".join(f"[{n}]" for n in wrong)
    return f"{cites} cite{'s' if len(wrong) == 1 else ''} no source that was read."


def source_list(findings: Sequence[Finding]) -> str:
    """The report's end: each source's number, title and address."""
    if not findings:
        return ""
    lines = [f"- [{f.n}] {_one_line(f.title)}: {f.where}" for f in findings]
    return "\n\n## Sources\n\n" + "\n".join(lines) + "\n"


def stop_note(stop: StopReason, *, rounds: int, seconds: float, cost: float | None) -> str:
    note = STOP_NOTES.get(stop, "")
    return note.format(rounds=rounds, minutes=f"{seconds / 60:g}",
                       cost=f"{cost:.2f}" if cost is not None else "?")


def partial_report(question: str, findings: Sequence[Finding], note: str) -> str:
    """A report made of what was found, for when the model may not write one (the
    run was stopped, or it reached its cost ceiling)."""
    head = f"**Partial research report**: {note}".rstrip() + "\n\n"
    head += f"Question: {_one_line(question)}\n\n"
    if not findings:
        return head + "Nothing was found before the research stopped.\n"
    body = "\n".join(f"- {_one_line(f.text)[:300]} [{f.n}]" for f in findings)
    return head + "What was found so far:\n\n" + body + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())
