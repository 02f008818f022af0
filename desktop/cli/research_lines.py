"""``assista ask --research``: its limits from the command line (else Settings), and
its progress as lines on stderr (the report itself streams to stdout)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TextIO

from desktop.chat.research.progress import ResearchLimits, ResearchProgress
from desktop.core.errors import ConfigError
from desktop.core.settings import AppSettings
from desktop.core.terminal_text import visible

STOPS = {
    "rounds": "stopped at its limit of {rounds} search rounds",
    "time": "stopped at its time limit ({minutes:g} min)",
    "cost": "stopped at its cost ceiling (${cost:.2f}); the report is what was found",
    "stopped": "stopped; the report is what was found so far",
}


def research_limits(args: argparse.Namespace, settings: AppSettings) -> ResearchLimits | None:
    """The run's limits (None: not a research question); ConfigError on bad ones."""
    given = [name for name in ("max_rounds", "max_minutes", "max_cost")
             if getattr(args, name, None) is not None]
    if not getattr(args, "research", False):
        if given:
            raise ConfigError(f"--{given[0].replace('_', '-')} needs --research")
        return None
    limits = ResearchLimits.from_settings(settings)
    if args.max_rounds is not None:
        if not 1 <= args.max_rounds <= 20:
            raise ConfigError("--max-rounds must be between 1 and 20")
        limits = replace(limits, max_rounds=args.max_rounds)
    if args.max_minutes is not None:
        if not 0 < args.max_minutes <= 240:
            raise ConfigError("--max-minutes must be more than 0 and at most 240")
        limits = replace(limits, max_seconds=args.max_minutes * 60)
    if args.max_cost is not None:
        if args.max_cost < 0:
            raise ConfigError("--max-cost cannot be negative")
        limits = replace(limits, max_cost=args.max_cost or None)
    return limits


class ResearchLines:
    """What changed since the last progress, one line each."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self._plan = False
        self._queries = 0
        self._pages = 0
        self._writing = False

    def __call__(self, event: ResearchProgress) -> None:
        out: list[str] = []
        if event.plan and not self._plan:
            self._plan = True
            out += ["plan:", *(f"  - {visible(step, lines=False)}" for step in event.plan)]
        out += [f"searching: {visible(q, lines=False)}" for q in event.queries[self._queries:]]
        out += [f"read [{n}] {visible(title, lines=False)} <{visible(url, lines=False)}>"
                for n, (title, url) in enumerate(event.pages[self._pages:],
                                                 start=self._pages + 1)]
        self._queries, self._pages = len(event.queries), len(event.pages)
        if event.phase == "writing" and not self._writing:
            self._writing = True
            out.append("writing the report…")
        if event.phase == "done":
            cost = f", ${event.cost:.4f}" if event.cost is not None else ""
            out.append(f"{len(event.queries)} searches, {len(event.pages)} sources read, "
                       f"{event.tokens} tokens{cost}, {event.elapsed_s:.0f} s")
            if event.stop in STOPS:
                out.append(STOPS[event.stop].format(
                    rounds=event.max_rounds, minutes=event.max_seconds / 60,
                    cost=event.max_cost or 0.0))
        for line in out:
            self.err.write(f"research: {line}\n")
        if out:
            self.err.flush()
