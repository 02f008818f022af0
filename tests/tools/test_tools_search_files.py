"""search_files: text and regex matching, case, globs, caps, skips, confinement."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.core.messages import ToolCallPart
from desktop.tools import ToolExecutor, Workspace, builtin_registry
from desktop.tools.builtins import search_files as search_module
from desktop.tools.builtins._common import GlobSet

Call = Callable[..., Awaitable[dict[str, Any]]]  # the ``call`` fixture


async def search(call: Call, query: str, **args: Any) -> dict[str, Any]:
    payload = await call("search_files", {"query": query, **args})
    assert payload["status"] == "success", payload
    result: dict[str, Any] = payload["result"]
    return result


def hits(result: dict[str, Any]) -> list[tuple[str, int]]:
    return [(m["path"], m["line"]) for m in result["matches"]]


@pytest.fixture
def tree(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("import os\n\ndef Hello():\n    return 'hello'\n")
    (root / "src" / "util.ts").write_text("export const hello = 1;\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_app.py").write_text("from app import Hello\n")
    (root / "notes.md").write_text("Say HELLO\r\nbye\r\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("hello from git\n")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "x.js").write_text("hello\n")
    (root / "image.png").write_bytes(b"\x89PNG\x00hello")
    return root


async def test_plain_text_is_case_insensitive_by_default(call: Call, tree: Path) -> None:
    result = await search(call, "hello")
    assert hits(result) == [
        ("notes.md", 1),
        ("src/app.py", 3),
        ("src/app.py", 4),
        ("src/util.ts", 1),
        ("tests/test_app.py", 1),
    ]
    first = result["matches"][0]
    assert first == {"path": "notes.md", "line": 1, "column": 5, "text": "Say HELLO"}
    assert result["truncated"] is False
    assert result["files_skipped"]["binary"] == 1
    assert result["files_searched"] == 4


async def test_case_sensitive(call: Call, tree: Path) -> None:
    result = await search(call, "Hello", case_sensitive=True)
    assert hits(result) == [("src/app.py", 3), ("tests/test_app.py", 1)]


async def test_plain_text_special_characters(call: Call, tree: Path) -> None:
    result = await search(call, "hello()")  # not a regex: no match for "hello" alone
    assert hits(result) == [("src/app.py", 3)]


async def test_regex(call: Call, tree: Path) -> None:
    result = await search(call, r"^def \w+\(", regex=True)
    assert hits(result) == [("src/app.py", 3)]
    anchored = await search(call, "hello$", regex=True)  # CRLF line endings do not get in the way
    assert ("notes.md", 1) in hits(anchored)


async def test_invalid_regex_is_a_clear_error(call: Call, tree: Path) -> None:
    payload = await call("search_files", {"query": "foo(", "regex": True})
    assert payload["error"]["code"] == "invalid_regex"
    assert "Invalid regular expression" in payload["error"]["message"]


async def test_include_and_exclude(call: Call, tree: Path) -> None:
    assert {p for p, _ in hits(await search(call, "hello", include="*.py"))} == {
        "src/app.py",
        "tests/test_app.py",
    }
    assert hits(await search(call, "hello", include="*.{ts,md}")) == [
        ("notes.md", 1),
        ("src/util.ts", 1),
    ]
    assert hits(await search(call, "hello", include="src/**/*.py")) == [
        ("src/app.py", 3),
        ("src/app.py", 4),
    ]
    assert {p for p, _ in hits(await search(call, "hello", exclude="tests/**, *.md"))} == {
        "src/app.py",
        "src/util.ts",
    }
    assert {p for p, _ in hits(await search(call, "hello", exclude="src"))} == {
        "notes.md",
        "tests/test_app.py",
    }


async def test_path_limits_the_search(call: Call, tree: Path) -> None:
    assert {p for p, _ in hits(await search(call, "hello", path="src"))} == {
        "src/app.py",
        "src/util.ts",
    }
    # globs also match relative to the searched folder
    assert hits(await search(call, "hello", path="src", include="util.*")) == [("src/util.ts", 1)]
    assert hits(await search(call, "hello", path="src/util.ts")) == [("src/util.ts", 1)]


async def test_max_results_caps_and_flags(call: Call, root: Path) -> None:
    (root / "many.txt").write_text("needle\n" * 50)
    result = await search(call, "needle", max_results=10)
    assert len(result["matches"]) == 10
    assert result["truncated"] is True
    assert "max_results" in result["note"]
    exact = await search(call, "needle", max_results=50)
    assert exact["truncated"] is False


async def test_long_lines_are_trimmed_around_the_match(call: Call, root: Path) -> None:
    (root / "min.js").write_text("a" * 1000 + "needle" + "b" * 1000 + "\n")
    [match] = (await search(call, "needle"))["matches"]
    assert len(match["text"]) <= 300
    assert "needle" in match["text"]
    assert match["column"] == 1001


async def test_large_files_are_skipped(
    call: Call, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_module, "MAX_FILE_BYTES", 100)
    (root / "big.txt").write_text("needle\n" * 100)
    (root / "small.txt").write_text("needle\n")
    result = await search(call, "needle")
    assert hits(result) == [("small.txt", 1)]
    assert result["files_skipped"]["too_large"] == 1


async def test_symlinks_and_escapes(call: Call, root: Path) -> None:
    (root / "real.txt").write_text("secret-ish but inside\n")
    os.symlink(root.parent / "outside", root / "escape-dir")
    os.symlink(root.parent / "outside" / "secret.txt", root / "escape.txt")
    result = await search(call, "secret")
    assert hits(result) == [("real.txt", 1)]  # links are not followed
    for path in ("escape-dir", "../outside", "escape.txt"):
        payload = await call("search_files", {"query": "secret", "path": path})
        assert payload["error"]["code"] == "path_outside_workspace", path


async def test_missing_path(call: Call) -> None:
    payload = await call("search_files", {"query": "x", "path": "nope"})
    assert payload["error"]["code"] == "not_found"


async def test_result_cap_through_executor(root: Path, workspace: Workspace) -> None:
    (root / "many.txt").write_text(("needle " + "x" * 290 + "\n") * 1000)
    executor = ToolExecutor(builtin_registry(), workspace, max_result_chars=20_000)
    part = await executor.run(
        ToolCallPart(id="c", name="search_files", arguments='{"query":"needle","max_results":1000}')
    )
    assert not part.is_error
    assert len(part.content) <= 20_000
    assert '"truncated":true' in part.content


@pytest.mark.parametrize(
    ("spec", "name", "path", "expected"),
    [
        ("*.py", "a.py", "src/a.py", True),
        ("*.py", "a.pyc", "src/a.pyc", False),
        ("src/*.py", "a.py", "src/sub/a.py", False),
        ("src/**/*.py", "a.py", "src/a.py", True),
        ("src/**/*.py", "a.py", "src/sub/deep/a.py", True),
        ("**/test_*.py", "test_x.py", "test_x.py", True),
        ("build/**", "build", "build", True),
        ("*.{js,jsx}", "a.jsx", "a.jsx", True),
        ("*.md, *.txt", "a.txt", "a.txt", True),
        ("[ab].c", "b.c", "b.c", True),
        ("[!ab].c", "b.c", "b.c", False),
        ("./src/a.py", "a.py", "src/a.py", True),
    ],
)
def test_globs(spec: str, name: str, path: str, expected: bool) -> None:
    assert GlobSet(spec).matches(name, [path]) is expected


def test_empty_globs() -> None:
    assert not GlobSet(None)
    assert not GlobSet(" , ")


async def test_bad_glob_is_a_clear_error(call: Call, tree: Path) -> None:
    payload = await call("search_files", {"query": "x", "include": "[z-a].py"})
    assert payload["error"]["code"] == "invalid_glob"
