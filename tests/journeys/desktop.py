"""A desktop for the journeys: a real X server with a window manager, a session D-Bus with
the accessibility bus, and ``assista`` started as installed (its console entry point, a
fresh HOME), driven with real key presses and clicks (xdotool) and read the way a screen
reader reads it (AT-SPI, from ``atspi_probe.py``).

Nothing here builds a window: the app is a separate process, the one a user starts.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SYSTEM_PYTHON = Path("/usr/bin/python3")
BUS_LAUNCHER = Path("/usr/libexec/at-spi-bus-launcher")
#: Time for a step to show on screen. Generous: under the CPU hog a step that takes a
#: tenth of a second on a quiet machine can take seconds. A journey that waits this long
#: has failed anyway; the wait never makes a passing journey slower.
PATIENCE = float(os.environ.get("ASSISTA_JOURNEY_PATIENCE", "60"))


def entry_point() -> Path:
    """The ``assista`` console script installed beside this Python (the venv's)."""
    script = Path(sys.executable).parent / ("assista.exe" if os.name == "nt" else "assista")
    if not script.exists():
        raise RuntimeError(f"{script} is missing: install the app (pip install -e .)")
    return script


def missing_tools() -> str | None:
    """What this machine lacks for the journeys (None: nothing)."""
    for tool in ("Xvfb", "xdotool", "openbox", "dbus-daemon", "import"):
        if shutil.which(tool) is None:
            return tool
    if not BUS_LAUNCHER.exists():
        return "at-spi2-core"
    probe = subprocess.run([str(SYSTEM_PYTHON), "-c", "import pyatspi"],
                           capture_output=True, check=False)
    if probe.returncode != 0:
        return "python3-pyatspi"
    return None


class JourneyFailure(AssertionError):
    pass


@dataclass
class Node:
    """One thing on screen, as AT-SPI reports it."""

    role: str
    name: str
    text: str
    description: str
    states: list[str]
    x: int
    y: int
    w: int
    h: int
    inside: list[str]

    @property
    def centre(self) -> tuple[int, int]:
        return self.x + self.w // 2, self.y + self.h // 2

    @property
    def focused(self) -> bool:
        return "focused" in self.states


class Probe:
    """The AT-SPI reader process (system Python + pyatspi)."""

    def __init__(self, env: dict[str, str], app_name: str = "Assista") -> None:
        self.process = subprocess.Popen(
            [str(SYSTEM_PYTHON), str(HERE / "atspi_probe.py"), app_name],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=env)

    def ask(self, request: dict[str, Any]) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            err = self.process.stderr.read() if self.process.stderr else ""
            raise JourneyFailure(f"the AT-SPI probe died: {err}")
        answer = json.loads(line)
        if isinstance(answer, dict) and "error" in answer:
            raise JourneyFailure(f"AT-SPI probe: {answer['error']}")
        return answer

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


class Screen:
    """Xvfb + openbox + a session bus with the accessibility bus."""

    def __init__(self, size: tuple[int, int], workdir: Path) -> None:
        self.size = size
        self.workdir = workdir
        self._processes: list[subprocess.Popen[bytes]] = []
        read_end, write_end = os.pipe()
        xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_end), "-nolisten", "tcp", "-screen", "0",
             f"{size[0]}x{size[1]}x24"], pass_fds=(write_end,),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_end)
        self._processes.append(xvfb)
        with os.fdopen(read_end) as pipe:
            number = pipe.readline().strip()
        if not number:
            self.stop()
            raise JourneyFailure("Xvfb did not start")
        self.display = f":{number}"
        bus = subprocess.run(
            ["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
            capture_output=True, text=True, check=True)
        address, pid = bus.stdout.split()[:2]
        self._bus_pid = int(pid)
        self.env = {
            "DISPLAY": self.display,
            "DBUS_SESSION_BUS_ADDRESS": address,
            "XDG_RUNTIME_DIR": str(self._runtime_dir()),
        }
        base = {**os.environ, **self.env}
        self.window_manager = self._start_window_manager(base)
        self._processes.append(subprocess.Popen(
            [str(BUS_LAUNCHER), "--launch-immediately"], env=base,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def _start_window_manager(self, env: dict[str, str]) -> subprocess.Popen[bytes]:
        """openbox, once it manages the screen. An app started before it did, or after
        it exited, has no window manager: nothing keeps a dialog above its window, and
        the window raised over its own question hides it (openbox here sometimes exits
        at once with status 1 and says nothing; it is then started again)."""
        log = self.workdir / "openbox.log"
        for _attempt in range(3):
            with log.open("ab") as errors:
                wm = subprocess.Popen(["openbox"], env=env, stdout=subprocess.DEVNULL,
                                      stderr=errors)
            self._processes.append(wm)
            if self._managed_by(wm, env):
                return wm
            status = wm.poll()
            if status is None:  # (running, but not managing the screen in time)
                wm.kill()
                wm.wait(timeout=10)
            print(f"openbox did not manage the screen (exit status {status}); again",
                  file=sys.stderr)
        self.stop()
        raise JourneyFailure(f"openbox did not start: {log.read_text(errors='replace')}")

    def _managed_by(self, wm: subprocess.Popen[bytes], env: dict[str, str]) -> bool:
        """Whether ``wm`` puts its check window on the root (it manages the screen),
        read as the root's properties change (``xprop -spy``; not spying on that one
        property: its atom may not exist yet), while ``wm`` runs."""
        spy = subprocess.Popen(["xprop", "-spy", "-root"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               bufsize=0)  # (unbuffered: select sees every line)
        assert spy.stdout is not None
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(spy.stdout, selectors.EVENT_READ)
                deadline = time.monotonic() + PATIENCE
                while wm.poll() is None and time.monotonic() < deadline:
                    # (woken by xprop's next line, or every 0.2 s to see wm still runs)
                    if selector.select(timeout=0.2) and spy.stdout.readline().startswith(
                            b"_NET_SUPPORTING_WM_CHECK(WINDOW)"):
                        return wm.poll() is None
            return False
        finally:
            spy.kill()
            spy.wait(timeout=10)

    def window_manager_running(self) -> bool:
        return self.window_manager.poll() is None

    def _runtime_dir(self) -> Path:
        runtime = self.workdir / "runtime"
        runtime.mkdir(mode=0o700, exist_ok=True)
        return runtime

    def xdotool(self, *args: str) -> str:
        done = subprocess.run(["xdotool", *args], env={**os.environ, **self.env},
                              capture_output=True, text=True, check=False, timeout=60)
        return done.stdout

    def screenshot(self, path: Path) -> Path:
        subprocess.run(["import", "-window", "root", str(path)],
                       env={**os.environ, **self.env}, capture_output=True, check=False,
                       timeout=60)
        return path

    def stop(self) -> None:
        for process in reversed(self._processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        if getattr(self, "_bus_pid", None):
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._bus_pid, signal.SIGTERM)


class CpuHog:
    """A slow machine: one busy process per core beside the app."""

    def __init__(self) -> None:
        cores = os.cpu_count() or 2
        self.processes = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                          for _ in range(cores)]

    def stop(self) -> None:
        for process in self.processes:
            process.kill()
            process.wait(timeout=10)


class Desktop:
    """One person's session with the app: start it, look, type, click, read what's stored."""

    def __init__(self, screen: Screen, home: Path, artifacts: Path,
                 env: dict[str, str] | None = None) -> None:
        self.screen = screen
        self.home = home
        self.artifacts = artifacts
        self.extra_env = dict(env or {})
        self.app: subprocess.Popen[bytes] | None = None
        self.probe: Probe | None = None
        self._logs: list[Path] = []
        self._shots = 0
        home.mkdir(parents=True, exist_ok=True)
        artifacts.mkdir(parents=True, exist_ok=True)

    # -- the app

    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items()
                if not k.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_",
                                     "OPENROUTER_", "OLLAMA_", "QT_", "XDG_"))}
        return {**keep, **self.screen.env, "HOME": str(self.home),
                "QT_QPA_PLATFORM": "xcb", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
                "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONUNBUFFERED": "1",
                **self.extra_env}

    def start(self, *args: str, wait_shown: bool = True) -> None:
        """``assista`` as the user starts it; waits until its window is on screen."""
        log = self.artifacts / f"app-{len(self._logs) + 1}.log"
        self._logs.append(log)
        with log.open("wb") as out:
            self.app = subprocess.Popen([str(entry_point()), *args], env=self.env(),
                                        stdout=out, stderr=subprocess.STDOUT,
                                        cwd=str(self.home))
        if self.probe is None:
            self.probe = Probe({**os.environ, **self.screen.env})
        if wait_shown:
            self.wait_for(role="frame", name_contains="Assista")

    def wait_window_mapped(self) -> None:
        """Until the app's window is on the X screen (as a person sees it appear: this
        is earlier than the accessibility bus hears of it)."""
        found = self.screen.xdotool("search", "--sync", "--onlyvisible", "--name", "Assista")
        if not found.strip():
            self._fail("the window never appeared")

    def quit_with_keys(self) -> int:
        """Ctrl+Q, as a user quits; the exit code."""
        self.key("ctrl+q")
        return self.wait_exit()

    def wait_exit(self, timeout: float = PATIENCE) -> int:
        assert self.app is not None
        try:
            return self.app.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.shot("did-not-quit")
            raise JourneyFailure(f"the app did not quit{self._wm_note()}") from None

    def stop(self) -> None:
        if self.app is not None and self.app.poll() is None:
            self.app.send_signal(signal.SIGTERM)
            try:
                self.app.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.app.kill()
                self.app.wait(timeout=10)
        if self.probe is not None:
            self.probe.stop()
            self.probe = None

    def log_text(self) -> str:
        """What the app printed, and its own log files."""
        parts = [log.read_text(errors="replace") for log in self._logs if log.exists()]
        for path in sorted(self.home.rglob("*.log")):
            parts.append(path.read_text(errors="replace"))
        return "\n".join(parts)

    def assert_clean_log(self) -> None:
        text = self.log_text()
        for bad in ("Traceback", "nexpected error", "no running event loop",
                    "ignored GeneratorExit"):
            if bad in text:
                raise JourneyFailure(f"{bad!r} in the app's log:\n{text[-6000:]}")

    # -- the screen

    def _match(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in kwargs.items() if v is not None}

    def find(self, **match: Any) -> list[Node]:
        assert self.probe is not None
        return [Node(**n) for n in self.probe.ask({"op": "find", "match": self._match(match)})]

    def wait_for(self, timeout: float = PATIENCE, **match: Any) -> Node:
        """The first node matching, once it is on screen (fails with a screenshot)."""
        assert self.probe is not None
        found = self.probe.ask({"op": "wait", "match": self._match(match),
                                "timeout": timeout})
        if not found:
            self._fail(f"never appeared on screen: {match}")
        return Node(**found[0])

    def wait_gone(self, timeout: float = PATIENCE, **match: Any) -> None:
        assert self.probe is not None
        left = self.probe.ask({"op": "wait_gone", "match": self._match(match),
                               "timeout": timeout})
        if left:
            self._fail(f"still on screen: {match}")

    def text_on_screen(self) -> str:
        assert self.probe is not None
        return "\n".join(" | ".join(filter(None, (n["name"], n["text"])))
                         for n in self.probe.ask({"op": "dump"}))

    def _wm_note(self) -> str:
        return "" if self.screen.window_manager_running() else \
            " (the window manager had exited: nothing kept dialogs above their window)"

    def _fail(self, what: str) -> None:
        shot = self.shot("failure")
        raise JourneyFailure(f"{what}{self._wm_note()}\nscreenshot: {shot}\non screen:\n"
                             f"{self.text_on_screen()[:6000]}\nlog:\n"
                             f"{self.log_text()[-4000:]}")

    def shot(self, label: str) -> Path:
        self._shots += 1
        return self.screen.screenshot(self.artifacts / f"{self._shots:02d}-{label}.png")

    # -- input, as a person gives it

    def type(self, text: str) -> None:
        self.screen.xdotool("type", "--delay", "12", text)

    def key(self, *keys: str) -> None:
        for key in keys:
            self.screen.xdotool("key", key)

    def click(self, node: Node) -> None:
        x, y = node.centre
        self.screen.xdotool("mousemove", str(x), str(y), "click", "1")

    def click_on(self, **match: Any) -> Node:
        node = self.wait_for(states=["enabled"], **match)
        self.click(node)
        return node

    def wait_idle(self) -> None:
        """Until no answer is running: the composer's Stop is Send again (the app turns
        it back once the turn's saves are done)."""
        self.wait_gone(role="push button", name="Stop")

    # -- what is stored

    def run_cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(entry_point()), *args], env=self.env(), text=True,
                              capture_output=True, check=False, timeout=timeout,
                              cwd=str(self.home))

    def export(self) -> list[dict[str, Any]]:
        """Every stored chat, through ``assista export`` (works beside the running app)."""
        done = self.run_cli("export", "--format", "json")
        if done.returncode != 0:
            raise JourneyFailure(f"assista export failed: {done.stderr}")
        data = json.loads(done.stdout)
        sessions = data.get("sessions", data) if isinstance(data, dict) else data
        return list(sessions)


def stored_texts(sessions: Sequence[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(role, text) of every stored message of ``sessions`` (an export's): its text
    parts joined."""
    for session in sessions:
        for message in session.get("messages", []):
            text = "".join(str(part.get("text", "")) for part in message.get("parts", [])
                           if isinstance(part, dict) and part.get("type") == "text")
            yield str(message.get("role", "")), text
