"""Tool definitions and the registry that holds them.

There is no global registry: build one (``desktop.tools.builtin_registry()``, or
``ToolRegistry()`` plus :meth:`ToolRegistry.register`) and pass it to a
:class:`~desktop.tools.executor.ToolExecutor`.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from desktop.core.errors import ToolError
from desktop.core.provider import ToolSpec
from desktop.tools.approval import POLICIES, ApprovalPreview, Policy
from desktop.tools.trust import ToolTrust
from desktop.tools.validation import build_validator
from desktop.tools.workspace import Workspace, no_workspace_error

if TYPE_CHECKING:  # jsonschema is slow to import: loaded when a validator is first built
    from jsonschema import Draft202012Validator

    from desktop.core.proxy import Proxy
    from desktop.tools.grant_scopes import ScopeKind

DEFAULT_RESULT_BUDGET = 100_000
_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class ToolContext(msgspec.Struct):
    """What a handler may use besides its arguments.

    ``cancel_event`` is set by the executor when the call times out or is
    cancelled; blocking work running in a thread should poll
    :meth:`raise_if_cancelled` so that it stops soon after. ``result_budget`` is
    roughly how many characters of result the executor will keep; tools that can
    return a lot should size their output to fit it. ``proxy``: the route for the
    HTTP requests a tool makes (None: httpx's defaults, which read the proxy
    variables of the environment). ``trust``: what the user lets tools reach beyond
    their safe defaults (fetch allow-list, environment variables for commands).
    ``origin``: the chat (session id) the call is made for: an MCP server's sampling
    or elicitation request during the call belongs to it.
    """

    workspace: Workspace | None = None
    call_id: str = ""
    result_budget: int = DEFAULT_RESULT_BUDGET
    cancel_event: threading.Event = msgspec.field(default_factory=threading.Event)
    default_timeout_s: float = 60.0
    on_output: Callable[[str, str], None] | None = None
    proxy: Proxy | None = None
    on_progress: Callable[[float, float | None, str | None], None] | None = None
    trust: ToolTrust = msgspec.field(default_factory=ToolTrust)
    origin: str | None = None

    def require_workspace(self) -> Workspace:
        """The workspace, or a ``no_workspace`` ToolError telling the model none is selected."""
        if self.workspace is None:
            raise no_workspace_error()
        return self.workspace

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def raise_if_cancelled(self) -> None:
        if self.cancel_event.is_set():
            raise ToolError("The tool call was stopped.", code="cancelled")

    def progress(self, done: float, total: float | None = None, message: str | None = None,
                 ) -> None:
        """Report how far the call is (shown on the running call); never raises."""
        if self.on_progress is not None:
            self.on_progress(done, total, message)

    def output(self, text: str, stream: str = "stdout") -> None:
        """Report live output (shown in the sidebar as it arrives); never raises."""
        if self.on_output is not None and text:
            self.on_output(text, stream)


ToolHandler = Callable[[dict[str, Any], ToolContext], Awaitable[Any]]
"""``async (args, ctx) -> JSON-able result``; raise ToolError for expected failures."""

WritesPaths = Callable[[Mapping[str, Any]], Sequence[str]]
"""Given validated arguments, the workspace-relative paths the call would write."""

PreviewFn = Callable[[dict[str, Any], ToolContext], Awaitable[ApprovalPreview]]
"""``async (args, ctx) -> preview`` shown when asking; must not change anything."""


@dataclass(frozen=True, slots=True, eq=False)
class Tool:
    """One tool: what the model sees (name, description, parameters) and its handler.

    ``parameters`` is a JSON Schema (Draft 2020-12) for the arguments object; it
    is checked on construction (with ``deferred_check``, on first use of
    :attr:`validator`: for the built-in tools, whose schemas are constants the
    tests check, so the window starts without importing jsonschema) and its
    validator is built once and cached on the tool. ``read_only`` tools change
    nothing; tools that write declare ``writes_paths`` so that the executor
    serializes calls touching the same files (a per-path lock held while the call
    runs).

    ``default_policy`` is the approval policy when settings do not override it
    (None: ``allow`` for read-only tools, ``ask`` otherwise). ``preview`` computes
    what the user sees when asked (default: the arguments). ``timeout_s``
    replaces the executor's timeout for this tool (for tools that enforce a
    per-call limit of their own). ``source`` is ``"builtin"`` or the MCP server's
    name. ``title`` is a built-in tool's name for people ("Read file", English: the
    window translates it); "" shows :attr:`name` (MCP tools). Raises ``ValueError``
    for an invalid name, schema or policy. ``scope`` and ``needs_workspace``: facts
    read by the grants and the chat's tool list (through the registry, by name).
    """

    name: str
    description: str
    parameters: dict[str, Any]
    handler: ToolHandler
    read_only: bool = True
    writes_paths: WritesPaths | None = None
    default_policy: Policy | None = None
    preview: PreviewFn | None = None
    timeout_s: float | None = None
    source: str = "builtin"
    title: str = ""
    deferred_check: bool = False
    #: What an "allow always" grant of this tool is scoped by (a built-in's: always
    #: scoped; see desktop.tools.grant_scopes); None: grants are not scoped.
    scope: ScopeKind | None = None
    #: Offered only in a chat with a workspace folder.
    needs_workspace: bool = False
    #: May change any file of the workspace (a command): the workspace is walked before
    #: and after each call so that undo covers it (desktop.tools.workspace_snapshot).
    changes_workspace: bool = False
    #: The boolean argument by which a call says it needs the network (a command's): when
    #: commands have none, the user is asked to allow it for the chat (ChatGrants).
    network_argument: str = ""
    _validator: Draft202012Validator | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.default_policy is None:
            object.__setattr__(self, "default_policy", "allow" if self.read_only else "ask")
        elif self.default_policy not in POLICIES:
            raise ValueError(f"Tool {self.name}: unknown policy {self.default_policy!r}.")
        if self.timeout_s is not None and self.timeout_s <= 0:
            raise ValueError(f"Tool {self.name}: timeout_s must be positive.")
        if not _NAME_RE.match(self.name):
            raise ValueError(
                f"Invalid tool name {self.name!r}: use 1-64 letters, digits, '_' or '-'."
            )
        if self.parameters.get("type") != "object":
            raise ValueError(f"Tool {self.name}: parameters must be a JSON Schema of type object.")
        if self.read_only and self.writes_paths is not None:
            raise ValueError(f"Tool {self.name}: a read-only tool cannot declare writes_paths.")
        if not self.deferred_check:
            self._build_validator()

    @property
    def validator(self) -> Draft202012Validator:
        """The arguments validator (built on first use for deferred tools)."""
        validator = self._validator
        return validator if validator is not None else self._build_validator()

    def _build_validator(self) -> Draft202012Validator:
        from jsonschema.exceptions import SchemaError

        try:
            validator = build_validator(self.parameters)
        except SchemaError as exc:
            raise ValueError(f"Tool {self.name}: invalid parameters schema: {exc.message}") from exc
        object.__setattr__(self, "_validator", validator)
        return validator

    def spec(self) -> ToolSpec:
        """The tool as sent to the model (the schema is copied, so callers may alter it)."""
        return ToolSpec(
            name=self.name,
            description=self.description,
            parameters=copy.deepcopy(self.parameters),
        )

    def paths_written(self, args: Mapping[str, Any]) -> list[str]:
        """The paths a call with ``args`` would write; empty for read-only tools."""
        return [] if self.writes_paths is None else list(self.writes_paths(args))

    @property
    def policy(self) -> Policy:
        """The default approval policy (never None after construction)."""
        return self.default_policy or ("allow" if self.read_only else "ask")


class ToolRegistry:
    """An ordered set of tools, keyed by name."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def extend(self, tools: Iterable[Tool]) -> None:
        for tool in tools:
            self.register(tool)

    def unregister(self, name: str) -> bool:
        """Remove a tool; False if there was none by that name."""
        return self._tools.pop(name, None) is not None

    def register(self, tool: Tool) -> None:
        """Add a tool; ``ValueError`` if one with the same name is already registered."""
        if tool.name in self._tools:
            raise ValueError(f"A tool named {tool.name!r} is already registered.")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Tool names in registration order."""
        return list(self._tools)

    def specs(self, enabled: set[str] | None = None) -> list[ToolSpec]:
        """Specs of the registered tools, restricted to ``enabled`` unless it is None."""
        return [
            tool.spec() for tool in self._tools.values() if enabled is None or tool.name in enabled
        ]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)
