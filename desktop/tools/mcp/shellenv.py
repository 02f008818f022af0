"""The PATH a stdio MCP server is started with: the user's login-shell PATH.

A desktop app started from a launcher does not get the PATH the user's shell
builds (nvm, Homebrew, ~/.local/bin...), which is why ``npx``/``uvx`` servers fail
with ``ENOENT`` in other clients. We ask the user's login shell once
(``$SHELL -l -c`` printing ``$PATH`` between markers, with a timeout, in its own
process group so that nothing it starts can linger), fall back to the current
PATH, and add common tool folders that exist.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable, Mapping

log = logging.getLogger(__name__)

COMMON_DIRS = (
    "~/.local/bin",
    "/usr/local/bin",
    "/opt/homebrew/bin",
    "/opt/homebrew/sbin",
    "~/.npm-global/bin",
    "~/.cargo/bin",
    "~/.bun/bin",
    "~/.deno/bin",
    "~/.volta/bin",
    "/opt/local/bin",
    "/usr/bin",
    "/bin",
)
_START = "__ASSISTA_PATH_START__"
_END = "__ASSISTA_PATH_END__"
_SCRIPT = f"printf '\\n{_START}%s{_END}\\n' \"$PATH\""


def query_login_shell_path(
    shell: str | None = None, *, timeout_s: float = 5.0, environ: Mapping[str, str] | None = None
) -> str | None:
    """``$PATH`` as the user's login shell sets it, or None if that cannot be found out."""
    env = dict(os.environ if environ is None else environ)
    shell = shell or env.get("SHELL") or ""
    if sys.platform == "win32" or not shell or not os.path.isabs(shell):
        return None
    try:
        process = subprocess.Popen(
            [shell, "-l", "-c", _SCRIPT],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        log.info("login shell %s could not start: %s", shell, exc)
        return None
    try:
        out, _ = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        log.warning("login shell %s did not print PATH within %gs", shell, timeout_s)
        return None
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # anything the rc files left behind
    text = out.decode("utf-8", errors="replace")
    start = text.rfind(_START)
    end = text.find(_END, start)
    if start == -1 or end == -1:
        return None
    value = text[start + len(_START) : end].strip()
    return value or None


def merge_paths(*paths: str | None, extra: Iterable[str] = COMMON_DIRS) -> str:
    """Join PATH strings, then the existing ``extra`` folders, without duplicates."""
    seen: set[str] = set()
    out: list[str] = []
    candidates: list[str] = []
    for path in paths:
        candidates += (path or "").split(os.pathsep)
    candidates += [d for d in (os.path.expanduser(e) for e in extra) if os.path.isdir(d)]
    for raw in candidates:
        entry = raw.strip()
        if entry and entry not in seen:
            seen.add(entry)
            out.append(entry)
    return os.pathsep.join(out)


class LoginPath:
    """Resolves the login-shell PATH once (thread-safe) and keeps it."""

    def __init__(
        self,
        *,
        shell: str | None = None,
        timeout_s: float = 5.0,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._shell = shell
        self._timeout_s = timeout_s
        self._environ = environ
        self._value: str | None = None
        self._lock = threading.Lock()

    def get(self) -> str:
        with self._lock:
            if self._value is None:
                env = os.environ if self._environ is None else self._environ
                login = query_login_shell_path(
                    self._shell, timeout_s=self._timeout_s, environ=self._environ
                )
                self._value = merge_paths(login, env.get("PATH"))
                log.info("stdio MCP servers start with PATH=%s", self._value)
            return self._value


def find_command(command: str, path: str) -> str | None:
    """The full path of ``command`` on ``path`` (a path with a separator is kept)."""
    if os.sep in command or (os.altsep and os.altsep in command):
        return command if os.path.exists(command) else None
    return shutil.which(command, path=path)
