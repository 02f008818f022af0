"""Approval policies and the request/decision types exchanged with the user.

Every tool has a :data:`Policy`: ``allow`` runs it at once, ``deny`` refuses it,
``ask`` makes the executor await an injected :data:`Approver` with an
:class:`ApprovalRequest` (tool, call id, full arguments and a preview computed
without side effects) before anything runs. The user answers with an
:class:`ApprovalDecision`: allow once, allow for this chat, always allow (a
persisted grant, see :mod:`desktop.tools.grants`) or deny with an optional reason
that is sent to the model.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, get_args

import msgspec

Policy = Literal["allow", "ask", "deny"]
POLICIES: tuple[Policy, ...] = get_args(Policy)

DecisionKind = Literal["allow_once", "allow_chat", "allow_always", "deny"]
PreviewKind = Literal["diff", "command", "url", "arguments"]
ProgressKind = Literal["status", "output", "progress"]
CallStatus = Literal["awaiting_approval", "running"]


#: The approval titles the built-in tools give, in English (the interface words each
#: code in its own language with the same parameters).
TITLE_CODES: dict[str, str] = {
    "fetch": "Fetch {host}",
    "run_command": "Run a command",
    "run_command_in": "Run a command in {folder}",
    "create": "Create {path}",
    "overwrite": "Overwrite {path}",
    "edit": "Edit {path}",
    "remember": "Save a memory",
    "command_network": "Allow network for this chat's commands",
}


def parse_policy(value: str) -> Policy:
    """``"Allow"``/``"ask"``/``" DENY "`` -> a :data:`Policy`; ``ValueError`` otherwise."""
    cleaned = value.strip().lower()
    for policy in POLICIES:
        if cleaned == policy:
            return policy
    raise ValueError(f"unknown tool policy {value!r}: use allow, ask or deny")


class ApprovalPreview(msgspec.Struct, frozen=True):
    """What the user sees before deciding.

    ``kind`` tells the UI how to render ``text``: a unified diff (edits and writes,
    computed without writing), the command line (run_command), the URL
    (fetch_url) or pretty-printed arguments (anything else). ``title`` is a short
    summary line such as ``"Edit src/app.py"`` (English, for logs and the command line);
    ``title_code`` and ``title_params`` say the same for an interface to word in its
    language (``"edit"``, ``(("path", "src/app.py"),)``: see :data:`TITLE_CODES`);
    ``error`` is set when the preview could not be computed (the request still goes to
    the user).
    """

    kind: PreviewKind
    text: str
    title: str = ""
    error: str | None = None
    title_code: str = ""
    title_params: tuple[tuple[str, str], ...] = ()
    # Where a command will run (run_command): a code of desktop.tools.sandbox.CODES, "".
    confinement: str = ""

    @classmethod
    def titled(cls, kind: PreviewKind, text: str, code: str, **params: str) -> ApprovalPreview:
        """A preview whose title is :data:`TITLE_CODES` ``[code]`` filled with ``params``."""
        return cls(kind, text, TITLE_CODES[code].format(**params), title_code=code,
                   title_params=tuple(params.items()))

    @classmethod
    def arguments(cls, args: Mapping[str, Any], title: str = "") -> ApprovalPreview:
        return cls("arguments", json.dumps(dict(args), ensure_ascii=False, indent=2), title)


class ApprovalRequest(msgspec.Struct, frozen=True):
    """One call waiting for the user's decision."""

    tool: str
    call_id: str
    arguments: dict[str, Any]
    preview: ApprovalPreview
    source: str = "builtin"  # "builtin", or the MCP server's name
    description: str = ""
    read_only: bool = False
    # The scope "Always allow" grants, proposed from the call (a path pattern, a program
    # or exact command, a host: see desktop.tools.grant_scopes); "" when there is none.
    proposed_scope: str = ""
    # True: "Always allow" must name a valid scope (never the whole tool); without one
    # it is not offered.
    always_needs_scope: bool = False
    # True: the call asks for the network, which commands do not have: "Allow for this
    # chat" allows it to this chat's commands (ChatGrants.command_network), "Allow once"
    # to this call; "Always allow" is not offered (Settings -> Tools says that).
    network: bool = False


class ApprovalDecision(msgspec.Struct, frozen=True):
    """The user's answer to an approval request: allow once, in this chat, always, or deny."""

    kind: DecisionKind
    reason: str | None = None
    scope: str = ""  # allow_always within this scope only ("": the whole tool, when allowed)

    @property
    def allowed(self) -> bool:
        return self.kind != "deny"

    @classmethod
    def allow_once(cls) -> ApprovalDecision:
        return cls("allow_once")

    @classmethod
    def allow_chat(cls) -> ApprovalDecision:
        return cls("allow_chat")

    @classmethod
    def allow_always(cls, scope: str = "") -> ApprovalDecision:
        return cls("allow_always", scope=scope.strip())

    @classmethod
    def deny(cls, reason: str | None = None) -> ApprovalDecision:
        return cls("deny", reason)


Approver = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]
"""``async approve(request) -> decision``; may wait as long as the user needs.

Cancelling the call (Stop, or :meth:`ToolExecutor.cancel`) cancels the await, so
an approver that shows UI should remove it in a ``finally``/``except CancelledError``.
"""


class ToolProgress(msgspec.Struct, frozen=True):
    """Live news about one call, for the sidebar.

    ``kind="status"``: ``text`` is a :data:`CallStatus` (``awaiting_approval`` when
    the approver is being asked, ``running`` when the tool starts). ``kind="output"``:
    ``text`` is a chunk of output (run_command's stdout/stderr, named by ``stream``).
    ``kind="progress"``: how far the call is (an MCP server's progress notifications):
    ``done`` of ``total`` (None: unknown), ``text`` the server's message or "done/total".
    """

    call_id: str
    name: str
    kind: ProgressKind
    text: str
    stream: str | None = None
    done: float | None = None
    total: float | None = None


ProgressSink = Callable[[ToolProgress], None]


class ChatGrants(msgspec.Struct):
    """Tools allowed "for this chat": keep one per chat and pass it to every executor.
    ``command_network``: the chat's commands may use the network (asked on a command
    that needs it, see :attr:`ApprovalRequest.network`)."""

    tools: set[str] = msgspec.field(default_factory=set)
    command_network: bool = False

    def __contains__(self, name: object) -> bool:
        return name in self.tools

    def add(self, name: str) -> None:
        self.tools.add(name)

    def clear(self) -> None:
        self.tools.clear()
        self.command_network = False


async def allow_all(request: ApprovalRequest) -> ApprovalDecision:
    """An approver that allows every call once (``assista ask --approve-all``)."""
    return ApprovalDecision.allow_once()
