"""The built-in tools, one module each, and :func:`builtin_registry`."""

from __future__ import annotations

from desktop.tools.builtins.list_directory import list_directory_tool
from desktop.tools.builtins.read_file import read_file_tool
from desktop.tools.builtins.search_files import search_files_tool
from desktop.tools.registry import ToolRegistry

__all__ = ["builtin_registry", "list_directory_tool", "read_file_tool", "search_files_tool"]


def builtin_registry() -> ToolRegistry:
    """A new registry holding every built-in tool (read_file, list_directory, search_files)."""
    return ToolRegistry([read_file_tool(), list_directory_tool(), search_files_tool()])
