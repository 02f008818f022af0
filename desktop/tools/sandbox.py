"""Where ``run_command`` commands may reach: an operating-system sandbox when the system
offers one.

On Linux the command runs under bubblewrap (``bwrap``, Debian's ``bubblewrap``): the whole
file system read-only, the workspace read-write, a private ``/tmp`` (and ``/var/tmp``,
``/dev/shm``), no network unless the user allows it (a new network namespace: not even
loopback), the app's data folder and the user's runtime folder (``$XDG_RUNTIME_DIR``: the
session bus and the keyring's socket) hidden behind empty folders, and the command ends
with the app (``--die-with-parent``). On macOS ``sandbox-exec`` runs it with a profile
that says the same. Elsewhere — or when bubblewrap is missing or cannot make namespaces
here — commands run unsandboxed, and every approval and tool card says so
(:class:`Confinement`'s ``code``).

The wrapping is done on the shell command line (``exec bwrap ... /bin/sh -c COMMAND``,
the command quoted), so the process supervisor and the shell path stay the same.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import msgspec

#: What a Confinement's ``code`` can be (the interface words each):
#: sandboxed_offline: sandboxed, no network; sandboxed_online: sandboxed, network allowed;
#: sandboxed_chat_online: sandboxed, network allowed for this chat's commands (a grant);
#: unsandboxed_off: the user turned the sandbox off; unsandboxed_missing: no sandbox on
#: this system (bubblewrap not installed or not working; another OS).
CODES = ("sandboxed_offline", "sandboxed_online", "sandboxed_chat_online", "unsandboxed_off",
         "unsandboxed_missing")

_WORDS = {  # for the model, the logs and the command line (English)
    "sandboxed_offline": "sandboxed: no network; writes only inside the workspace and a "
                         "private /tmp",
    "sandboxed_online": "sandboxed: network allowed; writes only inside the workspace and "
                        "a private /tmp",
    "sandboxed_chat_online": "sandboxed: network allowed for this chat's commands; writes "
                             "only inside the workspace and a private /tmp",
    "unsandboxed_off": "not sandboxed (turned off in Settings > Tools)",
    "unsandboxed_missing": "not sandboxed (this system offers no sandbox{detail})",
}


@functools.lru_cache(maxsize=4)
def bwrap_problem(bwrap: str | None = None) -> str | None:
    """Why bubblewrap cannot be used here (None: it can). Tried once per process: a
    system may have it installed yet forbid the namespaces it needs."""
    if not sys.platform.startswith("linux"):
        return "not Linux"
    found = bwrap or shutil.which("bwrap")
    if found is None:
        return "bubblewrap is not installed"
    try:
        done = subprocess.run(
            [found, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", "true"],
            stdin=subprocess.DEVNULL, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap does not start: {exc}"
    if done.returncode != 0:
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["?"])[-1]
        return f"bubblewrap cannot make a sandbox here: {last}"
    return None


class Confinement(msgspec.Struct, frozen=True):
    """How one command runs: its ``code`` (see :data:`CODES`), and the shell line."""

    code: str
    argv_prefix: tuple[str, ...] = ()
    detail: str = ""

    @property
    def sandboxed(self) -> bool:
        return self.code.startswith("sandboxed")

    def describe(self) -> str:
        """In English, for the model and the logs."""
        detail = f": {self.detail}" if self.detail else ""
        return _WORDS[self.code].format(detail=detail)

    def shell_line(self, command: str) -> str:
        """The line ``/bin/sh -c`` runs: the command itself, or the sandbox running it."""
        if not self.argv_prefix:
            return command
        return "exec " + shlex.join([*self.argv_prefix, "/bin/sh", "-c", command])


def _existing(paths: Iterable[str | Path]) -> list[str]:
    return [str(Path(p)) for p in paths if p and Path(p).exists()]


def bwrap_argv(bwrap: str, workspace: Path, cwd: Path, *, network: bool,
               hidden: Iterable[str | Path] = (),
               shown: Iterable[str | Path] = ()) -> tuple[str, ...]:
    """bubblewrap's arguments (before the command) for one command. ``shown``: folders
    inside a hidden one that commands may read (the app's skills: their scripts run)."""
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-ipc", "--unshare-uts",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/dev/shm"]
    if not network:
        argv.append("--unshare-net")
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    space = workspace.resolve()
    for path in _existing([*hidden, runtime]):
        resolved = Path(path).resolve()
        if resolved == space or resolved in space.parents:
            continue  # (never hide the workspace itself)
        argv += ["--tmpfs", str(resolved)]
    for path in _existing(shown):
        resolved = Path(path).resolve()
        argv += ["--ro-bind", str(resolved), str(resolved)]
    argv += ["--bind", str(space), str(space), "--chdir", str(cwd.resolve())]
    return tuple(argv)


def seatbelt_profile(workspace: Path, *, network: bool) -> str:
    """macOS ``sandbox-exec``'s profile: read everything, write the workspace and the
    temporary folders only, network only when allowed."""
    def quoted(path: str) -> str:
        return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["(version 1)", "(allow default)", "(deny file-write*)",
             f"(allow file-write* (subpath {quoted(str(workspace.resolve()))}))",
             '(allow file-write* (subpath "/private/tmp") (subpath "/private/var/folders"))',
             '(allow file-write* (literal "/dev/null") (literal "/dev/tty"))']
    if not network:
        lines.append("(deny network*)")
        lines.append('(allow network* (remote unix-socket (path-literal "/private/var/run/'
                     'mDNSResponder")))')
    return "\n".join(lines)


def confinement(workspace: Path, cwd: Path, *, enabled: bool, network: bool,
                hidden: Iterable[str | Path] = (),
                shown: Iterable[str | Path] = (), chat_network: bool = False) -> Confinement:
    """How a command in ``cwd`` of ``workspace`` will run, given the user's settings
    (``chat_network``: the chat allows its commands the network)."""
    online = "sandboxed_online" if network else "sandboxed_chat_online"
    network = network or chat_network
    if not enabled:
        return Confinement("unsandboxed_off")
    if sys.platform == "darwin":  # pragma: no cover - macOS only
        exe = shutil.which("sandbox-exec")
        if exe is None:
            return Confinement("unsandboxed_missing", detail="sandbox-exec not found")
        profile = seatbelt_profile(workspace, network=network)
        return Confinement(online if network else "sandboxed_offline", (exe, "-p", profile))
    problem = bwrap_problem()
    if problem is not None:
        return Confinement("unsandboxed_missing", detail=problem)
    bwrap = shutil.which("bwrap")
    assert bwrap is not None
    return Confinement(online if network else "sandboxed_offline",
                       bwrap_argv(bwrap, workspace, cwd, network=network, hidden=hidden,
                                  shown=shown))


__all__ = ["CODES", "Confinement", "bwrap_argv", "bwrap_problem", "confinement",
           "seatbelt_profile"]
