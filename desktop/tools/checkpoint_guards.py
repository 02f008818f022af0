"""Around one tool call: keep what it may change before it runs and note what it did
after, in the turn's checkpoint (:mod:`desktop.tools.checkpoints`), so that undo can
put it back. A write's files are named by its tool (``paths_written``); a command may
change any file of the workspace, found by walking it (:mod:`.workspace_snapshot`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path

from desktop.core.errors import ToolError
from desktop.tools.checkpoints import TurnCheckpoint
from desktop.tools.workspace_snapshot import WorkspaceSnapshots


@asynccontextmanager
async def guard_writes(checkpoint: TurnCheckpoint | None, call_id: str,
                       paths: Iterable[str]) -> AsyncIterator[None]:
    """Around one call: keep its files before it runs and note them after. A file
    that cannot be kept stops the call (nothing is written without a way back)."""
    files = [Path(p) for p in paths]
    if checkpoint is None or not files:
        yield
        return
    try:
        await asyncio.to_thread(checkpoint.before_write, call_id, files)
    except OSError as exc:
        raise ToolError(f"Assista could not keep a copy of the file before changing it "
                        f"({exc.strerror or exc}), so it was not written.",
                        code="io_error") from None
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            await asyncio.shield(asyncio.to_thread(checkpoint.after_write, files))


@asynccontextmanager
async def guard_workspace(checkpoint: TurnCheckpoint | None, call_id: str,
                          root: Path | None) -> AsyncIterator[None]:
    """Around a command: keep the workspace before it runs and note what it changed
    after (see workspace_snapshot). A workspace that cannot be kept stops the call."""
    if checkpoint is None or root is None:
        yield
        return
    walks = WorkspaceSnapshots(checkpoint.store, root)
    try:
        before = await asyncio.to_thread(walks.before)
    except OSError as exc:
        raise ToolError(f"Assista could not keep a copy of the workspace before the "
                        f"command ({exc.strerror or exc}), so it was not run.",
                        code="io_error") from None

    def note() -> None:
        checkpoint.note_command(call_id, walks.after(before))

    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            await asyncio.shield(asyncio.to_thread(note))
