"""A ring buffer of a server's stderr lines, filled by a reader thread per process."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import Callable

MAX_LINE_CHARS = 2_000


class StderrLog:
    """The last ``max_lines`` lines a server wrote to stderr (across restarts)."""

    def __init__(self, max_lines: int = 500) -> None:
        self._lines: deque[tuple[float, str]] = deque(maxlen=max_lines)
        self._cond = threading.Condition()
        self._total = 0
        self._eof = threading.Event()  # the current process's stderr has ended
        self.on_line: Callable[[str], None] | None = None

    def append(self, line: str) -> None:
        line = line.rstrip("\r\n")
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + "…"
        with self._cond:
            self._lines.append((time.time(), line))
            self._total += 1
            self._cond.notify_all()
        callback = self.on_line
        if callback is not None:
            with contextlib.suppress(Exception):  # a UI callback must not kill the reader
                callback(line)

    def lines(self) -> list[str]:
        with self._cond:
            return [line for _, line in self._lines]

    def entries(self) -> list[tuple[float, str]]:
        """``(unix time, line)`` pairs, oldest first."""
        with self._cond:
            return list(self._lines)

    def text(self) -> str:
        return "\n".join(self.lines())

    @property
    def total(self) -> int:
        """Lines seen since creation (including those that fell out of the buffer)."""
        with self._cond:
            return self._total

    def clear(self) -> None:
        with self._cond:
            self._lines.clear()

    def wait_for(self, needle: str, timeout_s: float) -> bool:
        """Block until a line containing ``needle`` is in the buffer (for tests and tools)."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while not any(needle in line for _, line in self._lines):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True

    def since(self, total: int) -> list[str]:
        """The lines written after :attr:`total` was ``total`` (those still kept)."""
        with self._cond:
            count = min(self._total - total, len(self._lines))
            return [line for _, line in list(self._lines)[len(self._lines) - count:]]

    def wait_ended(self, timeout_s: float) -> bool:
        """Wait until the current process's stderr is read to its end."""
        return self._eof.wait(timeout_s)

    def start_reader(self, fd: int) -> threading.Thread:
        """Read lines from ``fd`` (the read end of the server's stderr pipe) until EOF."""
        self._eof.clear()
        thread = threading.Thread(target=self._pump, args=(fd,), daemon=True, name="mcp-stderr")
        thread.start()
        return thread

    def _pump(self, fd: int) -> None:
        try:
            self._read_all(fd)
        finally:
            self._eof.set()

    def _read_all(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=0) as raw:
            pending = b""
            while chunk := raw.read(8192):
                pending += chunk
                *complete, pending = pending.split(b"\n")
                for line in complete:
                    self.append(line.decode("utf-8", errors="replace"))
                if len(pending) > MAX_LINE_CHARS * 4:
                    self.append(pending.decode("utf-8", errors="replace"))
                    pending = b""
            if pending:
                self.append(pending.decode("utf-8", errors="replace"))
