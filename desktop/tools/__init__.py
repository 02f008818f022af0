"""Tools the agent can call: registry, validation, approvals, execution, built-ins. No Qt.

Typical use::

    registry = builtin_registry()            # + McpManager(...).registry(registry) for MCP
    runner = ToolExecutor(
        registry, Workspace(folder), enabled={"read_file", "edit_file"}, timeout_s=60,
        policies=settings_overrides,         # {"run_command": "deny", ...}
        approver=ask_the_user,               # async (ApprovalRequest) -> ApprovalDecision
        grants=JsonGrantStore(path),         # persisted "always allow"
        chat_grants=chat.grants,             # "allow for this chat"
        on_progress=sidebar.update,          # ToolProgress: status changes, live output
    )
    specs = runner.specs()                   # sent to the model
    result = await runner.run(tool_call)     # a ToolResultPart, never raises for tool failures
    runner.cancel(call_id)                   # cancel one call from the sidebar
"""

from typing import TYPE_CHECKING

from desktop.core.lazy import lazy_names

if TYPE_CHECKING:
    from desktop.tools.approval import (
        ApprovalDecision,
        ApprovalPreview,
        ApprovalRequest,
        Approver,
        ChatGrants,
        Policy,
        ToolProgress,
    )
    from desktop.tools.builtins import builtin_registry
    from desktop.tools.checkpoint_guards import guard_workspace, guard_writes
    from desktop.tools.errors import ToolFailure
    from desktop.tools.executor import ToolExecutor
    from desktop.tools.grants import Grant, GrantStore, JsonGrantStore, MemoryGrantStore
    from desktop.tools.locks import PathLocks
    from desktop.tools.registry import Tool, ToolContext, ToolHandler, ToolRegistry
    from desktop.tools.results import ToolOutput
    from desktop.tools.validation import InvalidArguments, validate_arguments
    from desktop.tools.workspace import Workspace

#: Exported name -> the module defining it. Loaded on first use, so that importing one
#: submodule (the window needs the registry and the built-ins) does not load the rest;
#: and what only some tool calls use (keeping files for undo around a call that changes
#: them) not before the first question is sent.
_EXPORTS = {
    **dict.fromkeys(["ApprovalDecision", "ApprovalPreview", "ApprovalRequest", "Approver",
                     "ChatGrants", "Policy", "ToolProgress"], "desktop.tools.approval"),
    "builtin_registry": "desktop.tools.builtins",
    **dict.fromkeys(["guard_workspace", "guard_writes"], "desktop.tools.checkpoint_guards"),
    "ToolFailure": "desktop.tools.errors",
    "ToolExecutor": "desktop.tools.executor",
    **dict.fromkeys(["Grant", "GrantStore", "JsonGrantStore", "MemoryGrantStore"],
                    "desktop.tools.grants"),
    "PathLocks": "desktop.tools.locks",
    **dict.fromkeys(["Tool", "ToolContext", "ToolHandler", "ToolRegistry"],
                    "desktop.tools.registry"),
    "ToolOutput": "desktop.tools.results",
    **dict.fromkeys(["InvalidArguments", "validate_arguments"], "desktop.tools.validation"),
    "Workspace": "desktop.tools.workspace",
}


__getattr__ = lazy_names(__name__, _EXPORTS, globals())


__all__ = [
    "ApprovalDecision",
    "ApprovalPreview",
    "ApprovalRequest",
    "Approver",
    "ChatGrants",
    "Grant",
    "GrantStore",
    "InvalidArguments",
    "JsonGrantStore",
    "MemoryGrantStore",
    "PathLocks",
    "Policy",
    "Tool",
    "ToolContext",
    "ToolExecutor",
    "ToolFailure",
    "ToolHandler",
    "ToolOutput",
    "ToolProgress",
    "ToolRegistry",
    "Workspace",
    "builtin_registry",
    "guard_workspace",
    "guard_writes",
    "validate_arguments",
]
