"""What memory does in a running turn: the ``remember`` tool saves into the chat's
scope, and the system prompt gets the memories ranked again by vectors when there are
many (:mod:`desktop.chat.memory_recall`)."""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from typing import TYPE_CHECKING

from desktop.chat.memory_recall import recall
from desktop.core.errors import AssistaError
from desktop.core.prompt import with_memories

if TYPE_CHECKING:
    from desktop.chat.running import RunningTurn
    from desktop.chat.turn_plan import TurnPlan
    from desktop.storage.memories import MemoryStore
    from desktop.tools.builtins.remember import SaveMemory

log = logging.getLogger(__name__)


def memory_saver(memories: MemoryStore, turn: RunningTurn, plan: TurnPlan
                 ) -> SaveMemory | None:
    """Where the turn's ``remember`` tool saves (None: the turn writes no memory)."""
    return partial(_remember, memories, turn, plan) if plan.memory else None


def _remember(memories: MemoryStore, turn: RunningTurn, plan: TurnPlan,
              fact: str) -> tuple[str, str]:
    saved = not turn.session_id.startswith("unsaved-")
    question = turn.base[-1] if turn.base and turn.base[-1].role == "user" else None
    memory = memories.add(fact, plan.memory_project,
                          session_id=turn.session_id if saved else None,
                          message_id=question.id if saved and question is not None else None)
    return memory.id, memory.text


async def turn_system(plan: TurnPlan, memories: MemoryStore) -> str | None:
    """The system prompt a turn is sent: the plan's, with its memories ranked again by
    vectors when the plan says so (the full-text choice stays if that fails)."""
    if plan.recall is None:
        return plan.system
    try:
        texts = await asyncio.to_thread(recall, memories, plan.memory_project, plan.question,
                                        plan.recall)
    except AssistaError as exc:
        log.warning("memories ranked by full text only: %s", exc)
        return plan.system
    return with_memories(plan.base_system, texts)
