"""The window words an error by its code in the interface language, not by the English
text the error carries: with a translation of the ``Errors`` sentences installed (built
here by the real lrelease), a failed import and a refused MCP configuration read in
that language, the raise site's params filled in."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest
import qasync
from PySide6.QtCore import QTranslator
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.ui.tools.mcp_dialog import McpDialog
from tests.ui.conversation_helpers import make_window

WORDS = {
    "{file} is not a JSON file.": "{file} は JSON ファイルではありません。",
    "The MCP configuration is not valid JSON (line {line}).":
        "MCP 設定が有効な JSON ではありません（{line} 行目）。",
    "{sentence} Details: {detail}": "{sentence} 詳細: {detail}",
}


def _lrelease() -> str:
    here = Path(sys.executable).parent / "pyside6-lrelease"
    return str(here) if here.exists() else "pyside6-lrelease"


@pytest.fixture
def japanese(qapp: QApplication, tmp_path: Path) -> Iterator[None]:
    messages = "".join(f"<message><source>{escape(s)}</source><translation>{escape(t)}"
                       "</translation></message>" for s, t in WORDS.items())
    ts = tmp_path / "errors_ja.ts"
    ts.write_text('<?xml version="1.0" encoding="utf-8"?><!DOCTYPE TS><TS version="2.1" '
                  f'language="ja"><context><name>Errors</name>{messages}</context></TS>',
                  encoding="utf-8")
    qm = tmp_path / "errors_ja.qm"
    subprocess.run([_lrelease(), str(ts), "-qm", str(qm)], check=True, capture_output=True)
    translator = QTranslator()
    assert translator.load(str(qm))
    qapp.installTranslator(translator)
    yield
    qapp.removeTranslator(translator)


def test_a_failed_import_is_worded_by_its_code(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path, japanese: None,
) -> None:
    window = make_window(qtbot, open_ctx())
    bad = tmp_path / "notes.json"
    bad.write_text("this is not json", encoding="utf-8")
    io = window.conversations.io
    with qtbot.waitSignal(io.failed, timeout=10000) as failed:
        io.start_import(bad)
    said = failed.args[0]
    assert "notes.json は JSON ファイルではありません。 詳細: Expecting value" in said, said
    assert "is not a JSON file" not in said


def test_a_refused_mcp_configuration_is_worded_by_its_code(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    japanese: None,
) -> None:
    window = make_window(qtbot, open_ctx())
    dialog = window.dialogs.open("mcp")
    assert isinstance(dialog, McpDialog)
    assert not dialog.import_text("{nope")
    assert dialog.message.text().startswith(
        "⚠ MCP 設定が有効な JSON ではありません（1 行目）。 詳細: "), dialog.message.text()
