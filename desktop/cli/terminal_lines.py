"""Status lines on the terminal that never land inside an open question.

``assista ask`` prints what tools do ("⚙ name args", "✓ succeeded", progress) on stderr
while a server's question or an approval may be waiting for an answer on the same
terminal: a line written then would appear in the middle of the question ("Name (text):
  ✓ succeeded"). Questions read through :meth:`TerminalLines.asking`; lines written
meanwhile wait and follow the answer, in order.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TextIO


class TerminalLines:
    def __init__(self, err: TextIO) -> None:
        self.err = err
        self._lock = threading.Lock()  # questions are read on worker threads
        self._asking = 0
        self._held: list[str] = []

    def write(self, text: str) -> None:
        with self._lock:
            if self._asking:
                self._held.append(text)
                return
        self.err.write(text)
        self.err.flush()

    def asking(self, read: Callable[[str], str]) -> Callable[[str], str]:
        """``read`` (e.g. ``input``) that holds the status lines while it waits."""
        def guarded(prompt: str) -> str:
            with self._lock:
                self._asking += 1
            try:
                return read(prompt)
            finally:
                with self._lock:
                    self._asking -= 1
                    held, self._held = (self._held, []) if not self._asking else ([], self._held)
                for text in held:
                    self.err.write(text)
                self.err.flush()
        return guarded
