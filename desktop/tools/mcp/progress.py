"""A tool call's progress notifications, handed to a plain callback."""

from __future__ import annotations

from collections.abc import Callable

ProgressFn = Callable[[float, float | None, str | None], None]


class AsyncProgress:
    """The SDK's progress callback (awaited) around our plain one."""

    def __init__(self, progress: ProgressFn) -> None:
        self._progress = progress

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self._progress(progress, total, message)
