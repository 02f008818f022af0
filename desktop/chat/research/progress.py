"""What a research run may spend, and what it tells its watchers as it goes.

:class:`ResearchLimits` are the run's ceilings (rounds, seconds, US dollars);
:class:`ResearchProgress` is one snapshot of the run (its plan, the queries made,
the pages read, the time, tokens and cost so far, and why it stopped), emitted to
the chat's observers like any other chat event. Both carry numbers and codes, no
sentences: the window words them in the user's language, the CLI in English.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal

import msgspec

if TYPE_CHECKING:
    from desktop.core.settings import AppSettings

__all__ = ["RESEARCH_KEY", "Phase", "ResearchLimits", "ResearchProgress", "StopReason"]

#: ``provider_data`` key of a user message that asked for research.
RESEARCH_KEY = "research"

#: What the run is doing.
Phase = Literal["planning", "searching", "reading", "writing", "done"]

#: Why the research stopped gathering: "" (it has not), "done" (the model had enough),
#: "rounds", "time" or "cost" (a limit), "stopped" (the user), "failed".
StopReason = Literal["", "done", "rounds", "time", "cost", "stopped", "failed"]

DEFAULT_ROUNDS = 3
DEFAULT_MINUTES = 5.0
DEFAULT_COST = 0.50


@dataclass(frozen=True, slots=True)
class ResearchLimits:
    """``max_cost``: US dollars (None: no ceiling; a model without a known price has
    no cost, so no ceiling can stop it: the progress says the cost is unknown)."""

    max_rounds: int = DEFAULT_ROUNDS
    max_seconds: float = DEFAULT_MINUTES * 60
    max_cost: float | None = DEFAULT_COST
    queries_per_round: int = 3
    pages_per_round: int = 4
    clock: Callable[[], float] = field(default=time.monotonic, compare=False, repr=False)

    @classmethod
    def from_settings(cls, settings: AppSettings) -> ResearchLimits:
        cost = settings.research_max_cost
        return cls(max_rounds=settings.research_max_rounds,
                   max_seconds=settings.research_max_minutes * 60,
                   max_cost=cost if cost > 0 else None)


class ResearchProgress(msgspec.Struct, frozen=True):
    """The run as it stands (each event is whole: the last one seen is the state)."""

    phase: Phase
    plan: tuple[str, ...] = ()
    round: int = 0
    max_rounds: int = 0
    queries: tuple[str, ...] = ()
    pages: tuple[tuple[str, str], ...] = ()  # (title, URL or file path) read, in order
    failed_pages: int = 0
    elapsed_s: float = 0.0
    max_seconds: float = 0.0
    tokens: int = 0
    cost: float | None = None  # US dollars so far (None: the model has no known price)
    max_cost: float | None = None
    stop: StopReason = ""
    type: ClassVar[str] = "research_progress"
