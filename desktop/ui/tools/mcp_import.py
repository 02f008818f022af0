"""Where MCP servers are imported from: Claude Desktop's own settings file, or a
configuration pasted by the user (Claude-Desktop-style ``mcpServers`` JSON)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)


def claude_desktop_config() -> Path | None:
    """Where Claude Desktop keeps its MCP settings on this system, if the file exists."""
    home = Path.home()
    if sys.platform == "darwin":
        path = home / "Library/Application Support/Claude/claude_desktop_config.json"
    elif sys.platform == "win32":
        path = Path(os.environ.get("APPDATA", home)) / "Claude/claude_desktop_config.json"
    else:
        path = home / ".config/Claude/claude_desktop_config.json"
    return path if path.is_file() else None


class PasteDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Paste MCP servers"))
        self.resize(560, 380)
        layout = QVBoxLayout(self)
        hint = QLabel(self.tr('Paste a Claude-Desktop-style configuration, e.g. {"mcpServers": '
                      '{"time": {"command": "uvx", "args": ["mcp-server-time"]}}}'))
        hint.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setAccessibleName(self.tr("MCP configuration JSON"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(self.tr("Import"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(hint)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
