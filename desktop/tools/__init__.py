"""Tools the agent can call: registry, validation, execution, built-ins. No Qt here.

Typical use::

    registry = builtin_registry()
    runner = ToolExecutor(registry, Workspace(folder), enabled={"read_file"}, timeout_s=60)
    specs = runner.specs()                   # sent to the model
    result = await runner.run(tool_call)     # a ToolResultPart, never raises for tool failures
"""

from desktop.tools.builtins import builtin_registry
from desktop.tools.errors import ToolFailure
from desktop.tools.executor import ToolExecutor
from desktop.tools.registry import Tool, ToolContext, ToolHandler, ToolRegistry
from desktop.tools.validation import InvalidArguments, validate_arguments
from desktop.tools.workspace import Workspace

__all__ = [
    "InvalidArguments",
    "Tool",
    "ToolContext",
    "ToolExecutor",
    "ToolFailure",
    "ToolHandler",
    "ToolRegistry",
    "Workspace",
    "builtin_registry",
    "validate_arguments",
]
