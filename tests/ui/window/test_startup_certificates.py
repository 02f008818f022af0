"""The window reads the CA bundle (for the model list's HTTPS) on a thread of its own
while it loads, not on the main thread between two loading steps (15-50 ms of the
event loop held: tests/bench/bench_shipped_startup.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# ``assista --smoke``, each SSL context made noted with the thread that made it.
SMOKE = """
import ssl, sys, threading
made = []
real = ssl.create_default_context
def create_default_context(*args, **kwargs):
    made.append(threading.current_thread().name)
    return real(*args, **kwargs)
ssl.create_default_context = create_default_context
from desktop.__main__ import main
status = main(["--smoke", "--data-dir", sys.argv[1]])
print("CONTEXTS", made)
sys.exit(status)
"""


def test_the_ca_bundle_is_read_off_the_main_thread(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", SMOKE, str(tmp_path / "data")], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "smoke ok" in proc.stdout
    made = next(line for line in proc.stdout.splitlines() if line.startswith("CONTEXTS"))
    assert made == "CONTEXTS ['assista-certificates']", made
