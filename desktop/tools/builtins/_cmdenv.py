"""The environment a ``run_command`` command gets: a scrubbed base plus what the user names.

The app's own environment holds API keys (``OPENAI_API_KEY``...), tokens and
passwords; a command the model writes could print them into its output, which goes
to the database and back to the model (and a page it read may have asked for
exactly that). So commands start from a fixed set of harmless variables -- what a
shell and common tools need to find programs, the home folder, the language and the
terminal -- like stdio MCP servers do, and get more only by name from Settings ->
Tools (``command_env``).

A user entry is a name (``JAVA_HOME``) or a prefix ending in ``*`` (``NODE_*``). A
prefix never brings in a variable that looks like a secret (see :func:`looks_secret`);
naming such a variable exactly is the user's explicit choice and passes it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping

from desktop.tools.secret_names import looks_secret

BASE_VARIABLES = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE", "TZ", "TMPDIR",
    "TEMP", "TMP", "COLORTERM", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR",
})
BASE_PREFIXES = ("LC_",)
WINDOWS_VARIABLES = frozenset({
    "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "USERPROFILE", "APPDATA",
    "LOCALAPPDATA", "PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMDATA", "HOMEDRIVE",
    "HOMEPATH", "USERNAME", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE",
})


def command_environment(environ: Mapping[str, str], allowed: Iterable[str] = ()) -> dict[str, str]:
    """The variables of ``environ`` a command may see."""
    windows = sys.platform == "win32"
    base = BASE_VARIABLES | WINDOWS_VARIABLES if windows else BASE_VARIABLES
    exact: set[str] = set()
    prefixes: list[str] = []
    for entry in allowed:
        name = entry.strip()
        if name.endswith("*"):
            if name[:-1]:
                prefixes.append(name[:-1].upper() if windows else name[:-1])
        elif name:
            exact.add(name.upper() if windows else name)
    env: dict[str, str] = {}
    for name, value in environ.items():
        key = name.upper() if windows else name
        if key in base or key.startswith(BASE_PREFIXES) or key in exact or (
            any(key.startswith(p) for p in prefixes) and not looks_secret(key)
        ):
            env[name] = value
    return env


__all__ = ["BASE_VARIABLES", "command_environment", "looks_secret"]
