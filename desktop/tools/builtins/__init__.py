"""The built-in tools, one module each, and :func:`builtin_registry`.

Default approval policies: read_file, list_directory and search_files are
``allow`` (read-only, confined to the workspace); write_file, create_file,
edit_file, run_command and fetch_url are ``ask``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.lazy import lazy_names
from desktop.tools.builtins.edit_file import edit_file_tool
from desktop.tools.builtins.fetch_url import fetch_url_tool
from desktop.tools.builtins.list_directory import list_directory_tool
from desktop.tools.builtins.read_file import read_file_tool
from desktop.tools.builtins.run_command import run_command_tool
from desktop.tools.builtins.search_files import search_files_tool
from desktop.tools.builtins.write_file import create_file_tool, write_file_tool
from desktop.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from desktop.tools.builtins._html import html_to_text

#: What only some calls use, loaded then (not before the first question is sent):
#: reading a page fetch_url fetched as HTML (the standard library's html.parser).
__getattr__ = lazy_names(__name__, {"html_to_text": "desktop.tools.builtins._html"},
                         globals())

__all__ = [
    "builtin_registry",
    "create_file_tool",
    "edit_file_tool",
    "fetch_url_tool",
    "html_to_text",
    "list_directory_tool",
    "read_file_tool",
    "run_command_tool",
    "search_files_tool",
    "write_file_tool",
]


def builtin_registry() -> ToolRegistry:
    """A new registry holding every built-in tool, read-only ones first.

    Their schemas are constants checked by the tests, so each validator is built on
    the tool's first call rather than here (``deferred_check``: starting the app skips
    jsonschema)."""
    return ToolRegistry(
        [
            read_file_tool(),
            list_directory_tool(),
            search_files_tool(),
            write_file_tool(),
            create_file_tool(),
            edit_file_tool(),
            run_command_tool(),
            fetch_url_tool(),
        ]
    )
