"""desktop/sync imports no Qt and nothing above storage (the window and CLI use it)."""

from __future__ import annotations

import ast
from pathlib import Path

SYNC = Path(__file__).resolve().parents[2] / "desktop" / "sync"
FORBIDDEN = ("PySide6", "qasync", "desktop.ui", "desktop.chat", "desktop.cli", "desktop.app")


def test_the_sync_engine_imports_no_qt_and_nothing_above_storage() -> None:
    offenders = []
    for path in SYNC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.startswith(FORBIDDEN)]
    assert offenders == []
