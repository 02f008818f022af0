"""``assista quick`` with no app running: only the quick-ask window shows (the main
window is made hidden); "Open in the main window" shows it; putting the quick window
away quits (the app is not kept in the tray)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]

# Starts ``assista quick`` in this process and watches its windows from a timer: what
# is on screen once the quick window is, then (``--open-main``) after "Open in the main
# window", or after Escape in the quick window (the app should quit by itself).
QUICK_START = """
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv[:1])
seen = {}

def look():
    from desktop.ui.quick.quick_window import QuickAskWindow
    from desktop.ui.window.main_window import MainWindow
    tops = QApplication.topLevelWidgets()
    quick = [w for w in tops if isinstance(w, QuickAskWindow)]
    main = [w for w in tops if isinstance(w, MainWindow)]
    if not quick or not quick[0].isVisible() or not main or not main[0].ready:
        return
    if "at_start" not in seen:
        seen["at_start"] = {"quick": quick[0].isVisible(), "main": main[0].isVisible()}
        if sys.argv[2] == "--open-main":
            quick[0].controller.open_session(main[0].controller.ctx.sessions.create_session().id)
            quick[0].open_in_main()
            seen["after_open"] = {"quick": quick[0].isVisible(), "main": main[0].isVisible()}
            main[0].close()
        else:
            quick[0].input.cancelled.emit()  # Escape

timer = QTimer()
timer.timeout.connect(look)
timer.start(20)
from desktop.__main__ import main
status = main(["quick", "--data-dir", sys.argv[1]])
print(json.dumps(seen))
sys.exit(status)
"""


def run_quick(data: Path, mode: str) -> dict[str, Any]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", QUICK_START, str(data), mode], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return report


def test_assista_quick_starts_with_only_the_quick_window_and_quits_with_it(
    tmp_path: Path,
) -> None:
    report = run_quick(tmp_path / "data", "--escape")  # returns: the app quit by itself
    assert report["at_start"] == {"quick": True, "main": False}


def test_open_in_the_main_window_shows_it(tmp_path: Path) -> None:
    report = run_quick(tmp_path / "data", "--open-main")
    assert report["at_start"] == {"quick": True, "main": False}
    assert report["after_open"] == {"quick": False, "main": True}
