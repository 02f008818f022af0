"""Tools by their names for people: a built-in tool's title (translated), an MCP tool's
own name."""

from __future__ import annotations

from desktop.tools.builtins import builtin_registry
from desktop.ui.tools.tool_names import TITLES, builtin_titles, display_name, names_text


def test_every_built_in_tool_has_a_title_the_translators_see() -> None:
    titles = builtin_titles()
    assert {t.name for t in builtin_registry()} <= set(titles)
    assert {"web_search", "search_knowledge"} <= set(titles)
    assert set(titles.values()) == set(TITLES)


def test_display_names() -> None:
    assert display_name("read_file") == "Read file"
    assert display_name("run_command", "builtin") == "Run command"
    assert display_name("read_file", "github") == "read_file"  # an MCP server's tool
    assert display_name("github__create_issue", "github") == "github__create_issue"
    assert display_name("made\u200bup") == "made<U+200B>up"  # a name the model made up
    assert names_text(["read_file", "read_file", "edit_file"]) == "Read file, Edit file"
