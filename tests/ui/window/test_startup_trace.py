"""ASSISTA_STARTUP_TRACE: the shipped app writes when its window showed, when it had
loaded and the longest event-loop stall in between (read by
tests/bench/bench_shipped_startup.py); without the variable nothing is written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.ui.window.startup_trace import TRACE_VARIABLE, StartupTrace

ROOT = Path(__file__).resolve().parents[3]


class Clock:
    """A clock the test moves by hand (the stall is the test's, not the machine's)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_longest_stall_is_named_after_the_step_that_held_the_loop(
        qtbot: QtBot, tmp_path: Path) -> None:
    clock = Clock()
    trace = StartupTrace(str(tmp_path / "trace"), clock=clock, wall=lambda: 1.5,
                         cpu=lambda: (0.8125, 0.5))
    trace.shown()
    trace.step("import a")
    clock.now += 0.030  # "import a" held the loop 30 ms
    trace.step("import b")
    clock.now += 0.010
    trace.step("import c")
    clock.now += 0.002
    trace.loaded()
    with qtbot.waitSignal(trace._timer.timeout, timeout=5000):
        pass  # the timer beats between the steps too
    qtbot.waitUntil(lambda: not trace._timer.isActive(), timeout=5000)  # settled
    written = (tmp_path / "trace").read_text().splitlines()
    # each gap over 25 ms is written too, named (the 10 ms and 2 ms ones are not)
    assert [line for line in written if line.startswith("gap ")] == ["gap 30.0 import a"]
    lines = [line for line in written if not line.startswith("gap ")]
    assert lines[0] == "shown 1.500000"
    assert lines[1] == "loaded 1.500000 longest_stall_ms 30.0 at import a"
    assert lines[2] == "cpu 812.5 main_thread 500.0"  # (processor time used until loaded)
    assert lines[3] == "settled 1.500000 longest_stall_ms 30.0 at import a"


def run_smoke(data: Path, trace: Path | None) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env.pop(TRACE_VARIABLE, None)
    if trace is not None:
        env[TRACE_VARIABLE] = str(trace)
    proc = subprocess.run([sys.executable, "-m", "desktop", "--smoke", "--data-dir", str(data)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert "smoke ok" in proc.stdout


def test_the_shipped_entry_point_writes_the_trace_only_when_asked(tmp_path: Path) -> None:
    trace = tmp_path / "trace.txt"
    run_smoke(tmp_path / "data", None)
    assert not trace.exists()
    run_smoke(tmp_path / "data", trace)
    lines = [line for line in trace.read_text().splitlines() if not line.startswith("gap ")]
    shown, loaded = lines[0].split(), lines[1].split()
    assert shown[0] == "shown" and loaded[0] == "loaded", lines
    assert float(shown[1]) <= float(loaded[1])
    assert loaded[2] == "longest_stall_ms" and float(loaded[3]) >= 0
    assert loaded[4] == "at" and loaded[5:], lines  # the step that held the loop longest
    cpu = lines[2].split()  # processor time until loaded: the process's, its main thread's
    assert cpu[0] == "cpu" and cpu[2] == "main_thread", lines
    assert 0 < float(cpu[3]) <= float(cpu[1])


def test_with_a_stall_log_every_stall_over_a_frame_after_start_up_is_logged(
        qtbot: QtBot, tmp_path: Path) -> None:
    clock = Clock()
    stalls = tmp_path / "stalls"
    cpu = Clock()
    trace = StartupTrace(os.devnull, clock=clock, wall=lambda: 2.0, stall_log=str(stalls),
                         thread_cpu=cpu)
    trace.shown()
    trace.loaded()
    qtbot.waitUntil(lambda: trace.watching, timeout=5000)  # settled: the timer beats on
    clock.now += 0.010  # shorter than a frame: not logged
    with qtbot.waitSignal(trace._timer.timeout, timeout=5000):
        pass
    clock.now += 0.030
    cpu.now += 0.004  # of which the main thread ran 4 ms (it waited for a processor)
    with qtbot.waitSignal(trace._timer.timeout, timeout=5000):
        pass
    assert stalls.read_text().splitlines() == ["stall 2.000000 30.0 cpu 4.0"]
    trace._timer.stop()
