"""What the main thread is spared while the window loads (tests/bench/
bench_shipped_startup.py): the CA bundle (for the model list's HTTPS) is read on a
thread of its own, and no pass of the garbage collector runs over what was imported
(one pass over what the window built, once it is built)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

# ``assista --smoke``: each SSL context made, with the thread that made it, and each
# full collection, with the number of objects the collector tracked then.
SMOKE = """
import gc, json, ssl, sys, threading
made, passes = [], []
real = ssl.create_default_context
def create_default_context(*args, **kwargs):
    made.append(threading.current_thread().name)
    return real(*args, **kwargs)
ssl.create_default_context = create_default_context
def collected(phase, info):
    if phase == "start" and info["generation"] == 2:
        passes.append(len(gc.get_objects()))
gc.callbacks.append(collected)
from desktop.__main__ import main
status = main(["--smoke", "--data-dir", sys.argv[1]])
print(json.dumps({"contexts": made, "passes": passes}))
sys.exit(status)
"""


def smoke(data: Path) -> dict[str, list[object]]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", SMOKE, str(data)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "smoke ok" in proc.stdout
    report: dict[str, list[object]] = json.loads(proc.stdout.strip().splitlines()[-1])
    return report


@pytest.fixture(scope="module")
def first_start(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[object]]:
    """One first start of the app (a new data folder), read by both tests."""
    return smoke(tmp_path_factory.mktemp("main-thread") / "data")


def test_the_ca_bundle_is_read_off_the_main_thread(
        first_start: dict[str, list[object]]) -> None:
    assert first_start["contexts"] == ["assista-certificates"]


def test_what_was_imported_is_never_scanned_by_the_collector(
        first_start: dict[str, list[object]]) -> None:
    # one full pass while the app runs (what the window built), over a few thousand
    # objects; the ~100,000 the imports made were frozen out of every pass unscanned
    passes = first_start["passes"]
    assert len(passes) == 1, passes
