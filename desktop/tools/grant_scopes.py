"""Scopes of "always allow" grants: a path pattern for writes, a program or exact
command for ``run_command``, a host for ``fetch_url``.

For these tools "always allow" is always scoped (a grant of the whole tool is never
made): a call runs without asking only when its arguments fall inside a grant's scope;
anything else asks as before. Matching errs on the side of asking:

* paths are matched as they really are: symbolic links resolved, relative to the
  workspace (:func:`grant_arguments`); ``*`` in a pattern matches across folders
  (``src/*`` is everything below ``src``); nothing inside a ``.git`` folder is ever
  covered (its config can make git run commands);
* commands: see :mod:`desktop.tools.command_scopes` (a program with its safe options,
  or one exact command; never shell syntax);
* a host matches exactly (case-insensitive), or ``*.example.com`` matches the
  names below ``example.com``.
"""

from __future__ import annotations

import fnmatch
import functools
import posixpath
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from desktop.core.errors import ToolError
from desktop.tools import builtins as builtin_tools
from desktop.tools.command_scopes import command_matches, command_words, propose_command_scope
from desktop.tools.workspace import Workspace

if TYPE_CHECKING:
    from desktop.tools.approval import ApprovalRequest

ScopeKind = Literal["path", "command", "host"]
ScopeProblem = Literal["not_scoped", "empty", "outside", "git", "shell", "host"]



@functools.cache
def _builtin_scopes() -> dict[str, ScopeKind]:
    """The built-in tools whose grants are scoped, and what by (each tool says:
    ``Tool.scope``; looked up when first asked: a test adds a tool to them)."""
    return {tool.name: tool.scope for tool in builtin_tools.builtin_registry()
            if tool.scope is not None}

PROBLEMS: dict[ScopeProblem, str] = {
    "not_scoped": "this tool cannot have a scoped grant",
    "empty": "the scope is empty",
    "outside": "the pattern must stay inside the workspace (a relative path)",
    "git": "files in a .git folder are never allowed without asking",
    "shell": "a command grant is words without shell syntax ($ ` ; | & > < \\ or a line "
             "break, or * ? ~ ( ) outside quotes)",
    "host": "a host is a name such as api.example.com or *.example.com",
}


def scope_kind(tool: str) -> ScopeKind | None:
    return _builtin_scopes().get(tool)


def always_needs_scope(tool: str, source: str = "builtin") -> bool:
    """Whether "always allow" for this tool must name a scope (built-in scoped tools)."""
    return source == "builtin" and tool in _builtin_scopes()


def always_scope(request: ApprovalRequest) -> str | None:
    """The scope "Always allow" grants for this request: "" the whole tool; None: it is
    not offered (the tool is granted only within a scope and none valid was proposed;
    or the call asks for the network, which Settings -> Tools gives every chat)."""
    if request.network:
        return None
    if not request.always_needs_scope:
        return ""
    scope = request.proposed_scope
    return scope if scope and scope_problem(request.tool, scope) is None else None


def normalize_path(path: str) -> str:
    """A model's path in one spelling: forward slashes, no ``.``/``..`` steps left."""
    cleaned = posixpath.normpath(path.replace("\\", "/").strip())
    return "" if cleaned == "." else cleaned


def _outside(path: str) -> bool:
    return path.startswith("/") or path == ".." or path.startswith("../")


def in_git_folder(path: str) -> bool:
    """Whether a (normalised, relative) path or pattern names something in a ``.git``
    folder (any case: some file systems ignore it)."""
    return any(part.lower() == ".git" for part in path.split("/"))


def _host(url: str) -> str:
    try:
        return (urlsplit(url.strip()).hostname or "").lower().rstrip(".")
    except ValueError:
        return ""


def proposed_scope(tool: str, args: Mapping[str, Any]) -> str:
    """The scope the approval offers for this call ("" when none can be granted): the
    file's folder for a write (the file itself at the workspace root), the program (and
    subcommand) or the exact command, the URL's host."""
    kind = scope_kind(tool)
    if kind == "path":
        path = normalize_path(str(args.get("path") or ""))
        if not path or _outside(path) or in_git_folder(path):
            return ""
        folder = posixpath.dirname(path)
        return f"{folder}/*" if folder else path
    if kind == "command":
        return propose_command_scope(str(args.get("command") or ""))
    if kind == "host":
        return _host(str(args.get("url") or ""))
    return ""


def scope_problem(tool: str, scope: str) -> ScopeProblem | None:
    """Why ``scope`` cannot be a grant for ``tool`` (None: it can)."""
    kind = scope_kind(tool)
    text = scope.strip()
    if kind is None:
        return "not_scoped"
    if not text:
        return "empty"
    if kind == "path":
        if text.startswith("/") or _outside(normalize_path(text)):
            return "outside"
        return "git" if in_git_folder(normalize_path(text)) else None
    if kind == "command":
        return None if command_words(text) else "shell"
    if "/" in text or ":" in text or " " in text:
        return "host"
    return None


def unscoped_reason(tool: str, args: Mapping[str, Any]) -> ScopeProblem | None:
    """Why no scope can be proposed for this call (a command with shell syntax, a path
    in .git or outside the workspace); None when one can, or nothing is known."""
    kind = scope_kind(tool)
    key = {"path": "path", "command": "command", "host": "url"}.get(kind or "", "")
    value = str(args.get(key) or "")
    if not value or proposed_scope(tool, args):
        return None
    if kind == "path":
        return scope_problem(tool, normalize_path(value) or ".")
    return scope_problem(tool, value) if kind == "command" else "host"


def check_scope(tool: str, scope: str) -> str | None:
    """Why ``scope`` cannot be a grant for ``tool``, in words (None: it can)."""
    problem = scope_problem(tool, scope)
    return None if problem is None else PROBLEMS[problem]


def grant_arguments(tool: str, args: Mapping[str, Any],
                    workspace: Workspace | None) -> Mapping[str, Any] | None:
    """The arguments a scoped grant is matched against: a write's path with its
    symbolic links resolved, relative to the workspace; None when nothing may match
    (no workspace, a path or command folder outside it or in a ``.git`` folder)."""
    kind = scope_kind(tool)
    if kind == "host":
        return args
    if workspace is None:
        return None
    key = "path" if kind == "path" else "cwd"
    if kind == "command" and not args.get("cwd"):
        return args
    try:
        real = workspace.relative(workspace.resolve(str(args.get(key) or "")))
    except ToolError:
        return None
    if in_git_folder(real):
        return None
    return {**args, key: real}


def scope_matches(tool: str, scope: str, args: Mapping[str, Any]) -> bool:
    """Whether a call of ``tool`` with ``args`` (see :func:`grant_arguments`) falls
    inside ``scope``."""
    kind = scope_kind(tool)
    if kind is None or scope_problem(tool, scope) is not None:
        return False
    if kind == "path":
        path = normalize_path(str(args.get("path") or ""))
        if not path or _outside(path) or in_git_folder(path):
            return False
        return fnmatch.fnmatchcase(path, normalize_path(scope))
    if kind == "command":
        return command_matches(scope, str(args.get("command") or ""))
    host = _host(str(args.get("url") or ""))
    pattern = scope.strip().lower().rstrip(".")
    if not host:
        return False
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern
