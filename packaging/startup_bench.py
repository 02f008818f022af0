#!/usr/bin/env python3
"""Start-to-window time of the bundle versus the virtual environment, side by side.

``python packaging/startup_bench.py [--runs 7] [--bundle dist/assista/assista]``

Two measurements, each alternating bundle and venv runs (the first pair is a warm-up):

* **x11** (needs ``Xvfb``): a small X client watches the root window; the time is from
  spawning ``assista --smoke`` to the X server reporting the main window mapped
  (``MapNotify``). That is the moment a user would see the window.
* **offscreen**: from spawn to the ``smoke ok`` line (stdout on a pty, so it is not
  buffered) minus the 300 ms the app waits after ``show()`` before printing it.

Both use one data folder per variant, so runs after the first open an existing database.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import os
import pty
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from smoke import smoke_env

ROOT = Path(__file__).resolve().parent.parent
SMOKE_DELAY_S = 0.300  #: desktop/gui/__init__.py: QTimer.singleShot(300, finish) after show()
_MAP_NOTIFY = 19
_SUBSTRUCTURE_NOTIFY_MASK = 1 << 19


def _offscreen_once(command: list[str], data: Path) -> float:
    """Seconds from spawn to the smoke line, minus the app's fixed delay."""
    master, slave = pty.openpty()
    start = time.perf_counter()
    proc = subprocess.Popen([*command, "--smoke", "--data-dir", str(data)], stdout=slave,
                            stderr=subprocess.DEVNULL, env=smoke_env("offscreen"))
    os.close(slave)
    seen = b""
    found: float | None = None
    try:
        while found is None:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if b"smoke ok" in seen:
                found = time.perf_counter() - start - SMOKE_DELAY_S
    finally:
        proc.wait(timeout=60)
        os.close(master)
    if found is None or proc.returncode != 0:
        raise RuntimeError(f"{command[0]} --smoke failed (exit {proc.returncode})")
    return found


class _XEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("pad", ctypes.c_long * 24)]


class _ClassHint(ctypes.Structure):
    _fields_ = [("res_name", ctypes.c_char_p), ("res_class", ctypes.c_char_p)]


class X11Watcher:
    """Times how long a spawned client takes to map a top-level window (via libX11)."""

    def __init__(self, display: str) -> None:
        path = ctypes.util.find_library("X11")
        if path is None:
            raise RuntimeError("libX11 not found")
        self.x = ctypes.CDLL(path)
        self.x.XOpenDisplay.restype = ctypes.c_void_p
        self.x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self.x.XDefaultRootWindow.restype = ctypes.c_ulong
        self.x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        self.x.XSelectInput.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_long]
        self.x.XPending.argtypes = [ctypes.c_void_p]
        self.x.XNextEvent.argtypes = [ctypes.c_void_p, ctypes.POINTER(_XEvent)]
        self.x.XConnectionNumber.argtypes = [ctypes.c_void_p]
        self.x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.x.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self.x.XGetClassHint.argtypes = [ctypes.c_void_p, ctypes.c_ulong,
                                         ctypes.POINTER(_ClassHint)]
        self.wm_class: tuple[str, str] | None = None
        self.display_name = display
        self.dpy = self.x.XOpenDisplay(display.encode())
        if not self.dpy:
            raise RuntimeError(f"cannot open X display {display}")
        root = self.x.XDefaultRootWindow(self.dpy)
        self.x.XSelectInput(self.dpy, root, _SUBSTRUCTURE_NOTIFY_MASK)
        self.x.XSync(self.dpy, 1)

    def time_to_map(self, command: list[str], data: Path) -> float:
        env = smoke_env("xcb")
        env["DISPLAY"] = self.display_name
        self.x.XSync(self.dpy, 1)  # drop events from earlier runs
        start = time.perf_counter()
        proc = subprocess.Popen([*command, "--smoke", "--data-dir", str(data)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        fd = self.x.XConnectionNumber(self.dpy)
        event = _XEvent()
        mapped: float | None = None
        while mapped is None and time.perf_counter() - start < 60:
            while self.x.XPending(self.dpy):
                self.x.XNextEvent(self.dpy, ctypes.byref(event))
                if event.type == _MAP_NOTIFY and mapped is None:
                    mapped = time.perf_counter() - start
                    self._remember_class(event.pad[4])  # XMapEvent.window
            if mapped is None:
                select.select([fd], [], [], 0.05)
        proc.wait(timeout=60)
        if mapped is None or proc.returncode != 0:
            raise RuntimeError(f"{command[0]}: no window mapped (exit {proc.returncode})")
        return mapped

    def _remember_class(self, window: int) -> None:
        hint = _ClassHint()
        if self.x.XGetClassHint(self.dpy, window, ctypes.byref(hint)):
            self.wm_class = ((hint.res_name or b"").decode(), (hint.res_class or b"").decode())

    def close(self) -> None:
        self.x.XCloseDisplay(self.dpy)


def start_xvfb(number: int = 97) -> tuple[subprocess.Popen[bytes], str] | None:
    if shutil.which("Xvfb") is None:
        return None
    display = f":{number}"
    proc = subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    socket = Path(f"/tmp/.X11-unix/X{number}")
    deadline = time.monotonic() + 10
    while not socket.exists() and time.monotonic() < deadline and proc.poll() is None:
        select.select([], [], [], 0.05)
    if not socket.exists():
        proc.kill()
        return None
    return proc, display


def compare(variants: dict[str, list[str]], once: Callable[[list[str], Path], float],
            runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory(prefix="assista-bench-") as tmp:
        for index in range(runs + 1):  # the first round warms caches and creates the DBs
            for name, command in variants.items():
                seconds = once(command, Path(tmp) / name)
                if index:
                    times[name].append(seconds)
    return times


def summary(label: str, times: dict[str, list[float]]) -> str:
    count = len(next(iter(times.values())))
    lines = [f"{label}: start to window, seconds (median / min / max of {count} runs)"]
    for name, values in times.items():
        lines.append(f"  {name:8} {statistics.median(values):.3f} / {min(values):.3f} / "
                     f"{max(values):.3f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist" / "assista" / "assista")
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv" / "bin" / "assista")
    args = parser.parse_args(argv)
    variants = {"bundle": [str(args.bundle)], "venv": [str(args.venv)]}
    for path in (args.bundle, args.venv):
        if not path.is_file():
            print(f"startup_bench: {path} not found (build first: python packaging/build.py)")
            return 2
    print(f"machine: {os.cpu_count()} CPUs, {sys.platform}")
    print(summary("offscreen", compare(variants, _offscreen_once, args.runs)))
    xvfb = start_xvfb()
    if xvfb is None:
        print("x11: skipped (no Xvfb)")
        return 0
    proc, display = xvfb
    try:
        watcher = X11Watcher(display)
        try:
            print(summary(f"x11 (Xvfb {display})", compare(variants, watcher.time_to_map,
                                                             args.runs)))
            print(f"  WM_CLASS of the main window: {watcher.wm_class}")
        finally:
            watcher.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
