"""Scopes of "always allow" grants: a path pattern for writes, a command prefix for
``run_command``, a host for ``fetch_url``.

A scoped grant lets a call run without asking only when its arguments fall inside the
scope; anything else asks as before. Matching errs on the side of asking:

* paths are normalised first (``src/../../etc/x`` is ``../etc/x`` and matches no
  pattern that does not itself climb out), and ``*`` in a pattern matches across
  folders (``src/*`` is everything below ``src``);
* a command matches its prefix word by word (``git status`` covers
  ``git status --short``, not ``git statusx``), and a command line with shell
  operators, substitutions or redirections (``;``, ``&&``, ``|``, ``$(``, a
  backquote, ``>``, a line break...) never matches: the prefix would not say what
  else runs;
* a host matches exactly (case-insensitive), or ``*.example.com`` matches the
  names below ``example.com``.
"""

from __future__ import annotations

import fnmatch
import posixpath
import shlex
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

ScopeKind = Literal["path", "command", "host"]

#: The tools whose grants can be scoped, and what by.
SCOPE_KINDS: dict[str, ScopeKind] = {
    "write_file": "path",
    "create_file": "path",
    "edit_file": "path",
    "run_command": "command",
    "fetch_url": "host",
}

_SHELL_OPERATORS = (";", "&", "|", "`", "$(", "${", ">", "<", "\n", "\r", "\\")


def scope_kind(tool: str) -> ScopeKind | None:
    return SCOPE_KINDS.get(tool)


def normalize_path(path: str) -> str:
    """A model's path in one spelling: forward slashes, no ``.``/``..`` steps left."""
    cleaned = posixpath.normpath(path.replace("\\", "/").strip())
    return "" if cleaned == "." else cleaned


def _command_words(command: str) -> list[str] | None:
    if any(op in command for op in _SHELL_OPERATORS):
        return None
    try:
        return shlex.split(command)
    except ValueError:
        return None


def _host(url: str) -> str:
    try:
        return (urlsplit(url.strip()).hostname or "").lower().rstrip(".")
    except ValueError:
        return ""


def proposed_scope(tool: str, args: Mapping[str, Any]) -> str:
    """The scope the approval card offers for this call ("" when none makes sense):
    the file's folder for a write, the program and its first word for a command,
    the URL's host."""
    kind = scope_kind(tool)
    if kind == "path":
        path = normalize_path(str(args.get("path") or ""))
        if not path or path.startswith(("../", "/")) or path == "..":
            return path
        folder = posixpath.dirname(path)
        return f"{folder}/*" if folder else "*"
    if kind == "command":
        words = _command_words(str(args.get("command") or ""))
        if not words:
            return ""
        keep = words[:2] if len(words) > 1 and not words[1].startswith("-") else words[:1]
        return shlex.join(keep)
    if kind == "host":
        return _host(str(args.get("url") or ""))
    return ""


def check_scope(tool: str, scope: str) -> str | None:
    """Why ``scope`` cannot be a grant for ``tool`` (None: it can)."""
    kind = scope_kind(tool)
    text = scope.strip()
    if kind is None:
        return f"{tool} cannot have a scoped grant"
    if not text:
        return "the scope is empty"
    if kind == "path":
        if normalize_path(text).startswith("..") or text.startswith("/"):
            return "the pattern must stay inside the workspace (a relative path)"
        return None
    if kind == "command":
        words = _command_words(text)
        if not words:
            return "a command prefix is words, without shell operators (; & | $( ` > <)"
        return None
    if "/" in text or ":" in text or " " in text:
        return "a host is a name such as api.example.com or *.example.com"
    return None


def scope_matches(tool: str, scope: str, args: Mapping[str, Any]) -> bool:
    """Whether a call of ``tool`` with ``args`` falls inside ``scope``."""
    kind = scope_kind(tool)
    if kind is None or check_scope(tool, scope) is not None:
        return False
    if kind == "path":
        path = normalize_path(str(args.get("path") or ""))
        if not path or path.startswith("..") or path.startswith("/"):
            return False
        return fnmatch.fnmatchcase(path, normalize_path(scope))
    if kind == "command":
        words = _command_words(str(args.get("command") or ""))
        prefix = _command_words(scope) or []
        return words is not None and bool(prefix) and words[: len(prefix)] == prefix
    host = _host(str(args.get("url") or ""))
    pattern = scope.strip().lower().rstrip(".")
    if not host:
        return False
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern
