"""Soak: PySide6 6.12.0 on Python 3.11 aborted after ~1,000 emits of a Python-defined
Signal or ~20,000 processEvents() calls. A streaming chat emits per token, so run far
more than that in a child process (an abort kills the process, not just a test)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import sys
    from PySide6.QtCore import QObject, Signal
    from PySide6.QtWidgets import QApplication

    class Source(QObject):
        text = Signal(str)
        flag = Signal(bool)
        item = Signal(object)

    app = QApplication(sys.argv[:1])
    source = Source()
    seen = []
    source.text.connect(seen.append)
    source.flag.connect(lambda value: None)
    source.item.connect(lambda value: None)
    for i in range(30000):
        source.text.emit("tok")
        source.flag.emit(i % 2 == 0)
        source.item.emit(None)
    for _ in range(30000):
        app.processEvents()
    print(len(seen))
    """
)


def test_many_signal_emits_and_process_events_do_not_abort() -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "30000"
