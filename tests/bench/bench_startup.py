"""Cold start to the main window shown, against a bare PySide6 window in the same run.

Each run is a fresh interpreter (``python -c``); the time is from just before the
process is spawned to the moment its window is exposed on the (offscreen) screen,
reported by the child. Runs alternate bare / app; the median of each is compared.

    .venv/bin/python tests/bench/bench_startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

WAIT_SHOWN = """
from PySide6.QtCore import QTimer
def _shown(window, app):
    def check():
        handle = window.windowHandle()
        if handle is not None and handle.isExposed():
            print("SHOWN", time.time(), flush=True)
            app.quit()
        else:
            QTimer.singleShot(1, check)
    QTimer.singleShot(0, check)
"""

BARE = """
import time
from PySide6.QtWidgets import QApplication, QMainWindow
""" + WAIT_SHOWN + """
app = QApplication([])
window = QMainWindow()
window.resize(1280, 820)
window.show()
_shown(window, app)
app.exec()
"""

APP = """
import time, sys
import qasync
from desktop.app import AppContext
from desktop.ui.controller import ChatController
from desktop.ui.launch import make_application
from desktop.ui.main_window import MainWindow
from desktop.ui.theme import apply_theme
""" + WAIT_SHOWN + """
app = make_application()
ctx = AppContext.open(sys.argv[1], log_to_stderr=False)
apply_theme(app, ctx.load_settings().theme)
loop = qasync.QEventLoop(app)
window = MainWindow(ChatController(ctx))
window.show()
_shown(window, app)
app.exec()
ctx.close()
"""


def run(code: str, *args: str) -> float:
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    started = time.time()
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         cwd=ROOT, env=env, timeout=60, check=True).stdout
    shown = next(float(line.split()[1]) for line in out.splitlines()
                 if line.startswith("SHOWN"))
    return shown - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    bare: list[float] = []
    app: list[float] = []
    with tempfile.TemporaryDirectory() as data:
        run(APP, data)  # first start creates the database; not counted
        for _ in range(args.runs):
            bare.append(run(BARE))
            app.append(run(APP, data))
    b, a = statistics.median(bare), statistics.median(app)
    ratio = a / b
    print(f"bare PySide6 window   median {b * 1000:6.0f} ms  (runs: "
          f"{', '.join(f'{x * 1000:.0f}' for x in bare)})")
    print(f"Assista main window   median {a * 1000:6.0f} ms  (runs: "
          f"{', '.join(f'{x * 1000:.0f}' for x in app)})")
    print(f"ratio                 {ratio:6.2f}x   (target <= 1.5x)   "
          f"{'PASS' if ratio <= 1.5 else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
