"""The folders' dependency rule, checked on the source: ui and cli use chat; chat uses
core, providers, tools and storage; nothing below chat imports it, and nothing under
chat (or below it) imports Qt."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

DESKTOP = Path(__file__).resolve().parents[2] / "desktop"
QT_FREE = ("core", "providers", "tools", "storage", "chat")
BELOW_CHAT = ("core", "providers", "tools", "storage")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def offenders(packages: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    found = []
    for package in packages:
        for path in sorted((DESKTOP / package).rglob("*.py")):
            for name in imported_modules(path):
                if name.startswith(forbidden):
                    found.append(f"{path.relative_to(DESKTOP.parent)} imports {name}")
    return found


def test_nothing_below_the_ui_imports_qt() -> None:
    assert offenders(QT_FREE, ("PySide6", "qasync", "desktop.ui")) == []


def test_nothing_below_the_chat_service_imports_it_or_the_cli() -> None:
    assert offenders(BELOW_CHAT, ("desktop.chat", "desktop.cli", "desktop.ui")) == []


def test_the_chat_service_does_not_import_the_cli() -> None:
    assert offenders(("chat",), ("desktop.cli",)) == []


def test_the_chat_service_runs_without_qt_loaded() -> None:
    code = ("import sys, desktop.chat.service, desktop.cli.ask; "
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'qasync'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=DESKTOP.parent)
    assert out.stdout.strip() == "[]"
