"""docs/conformance.md names tests as ``file::test`` (a bare ``::test`` is in the file
named before it on the same line): every one must exist, and the README links the page."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "conformance.md"
NAME = re.compile(r"`(?P<file>[\w/]+\.py)?(?:::(?P<test>\w+))?(?:\[[^\]`]*\])?`")


def named_tests(text: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for line in text.splitlines():
        current = ""
        for match in NAME.finditer(line):
            current = match["file"] or current
            if match["test"]:
                assert current, f"::{match['test']} without a file before it: {line}"
                found.append((current, match["test"]))
    return found


def test_every_test_the_conformance_page_names_exists() -> None:
    named = named_tests(DOC.read_text(encoding="utf-8"))
    assert len(named) > 50
    missing = []
    for file, test in named:
        path = ROOT / "tests" / file
        source = path.read_text(encoding="utf-8") if path.exists() else ""
        if not re.search(rf"^(async )?def {test}\(", source, re.MULTILINE):
            missing.append(f"{file}::{test}")
    assert missing == []


def test_the_readme_links_the_conformance_page() -> None:
    assert "(docs/conformance.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
