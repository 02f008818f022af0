"""A catastrophic regex from the model cannot hold the event loop: search_files runs
regexes on RE2 (linear time), and the tool timeout holds."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from desktop.core.messages import ToolCallPart
from desktop.tools import ToolExecutor, Workspace, builtin_registry
from desktop.tools.approval import allow_all

TIMEOUT_S = 5.0


async def search(root: Path, **args: Any) -> tuple[dict[str, Any], float, int]:
    """The payload, how long the call took, and how often the loop turned meanwhile."""
    executor = ToolExecutor(builtin_registry(), Workspace(root), approver=allow_all,
                            timeout_s=TIMEOUT_S)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            ticks += 1

    running = asyncio.create_task(ticker())
    started = time.monotonic()
    try:
        part = await executor.run(ToolCallPart(id="s", name="search_files",
                                               arguments=json.dumps(args)))
    finally:
        running.cancel()
    return json.loads(part.content), time.monotonic() - started, ticks


async def test_catastrophic_regex_ends_within_the_timeout(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text("a" * 200_000 + "!\n" + "aaa\n", encoding="utf-8")
    payload, elapsed, ticks = await search(tmp_path, query="(a+)+$", regex=True)
    assert elapsed < TIMEOUT_S
    assert ticks > 0  # the event loop kept turning during the call
    assert [m["line"] for m in payload["result"]["matches"]] == [2]
    nested, elapsed, _ = await search(tmp_path, query="^(a|aa)+(a|aa)+b$", regex=True)
    assert elapsed < TIMEOUT_S and nested["result"]["matches"] == []


async def test_unsupported_syntax_says_why(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("abab\n", encoding="utf-8")
    for pattern in (r"(ab)\1", r"a(?=b)", r"(?<!x)a"):
        payload, _, _ = await search(tmp_path, query=pattern, regex=True)
        assert payload["error"]["code"] == "invalid_regex"
        assert "RE2" in payload["error"]["message"]
        assert "regex=false" in payload["error"]["message"]
    payload, _, _ = await search(tmp_path, query="AB", regex=True, case_sensitive=True)
    assert payload["result"]["matches"] == []
    payload, _, _ = await search(tmp_path, query="AB", regex=True)
    assert payload["result"]["matches"][0]["column"] == 1
