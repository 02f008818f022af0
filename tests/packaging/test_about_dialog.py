"""Help > About: version, and the bundled components with their licences."""

from __future__ import annotations

import importlib.metadata as md
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop import __version__
from desktop.ui.dialogs import about_dialog
from desktop.ui.dialogs.about_dialog import AboutDialog, bundled_components, licence_name


def test_components_cover_the_runtime_dependencies() -> None:
    names = {c.name.lower().replace("_", "-") for c in bundled_components()}
    for expected in ("qt", "python", "pyside6-essentials", "httpx", "keyring", "pydantic",
                     "certifi", "qasync", "socksio"):
        assert expected in names, expected
    assert "pytest" not in names and "ruff" not in names  # test tools are not bundled


def test_dialog_shows_version_and_licence_text(qtbot: QtBot) -> None:
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    dialog.open()
    qtbot.waitExposed(dialog)
    assert __version__ in dialog.summary.text()
    assert dialog.table.rowCount() == len(dialog.components)
    row = next(i for i, c in enumerate(dialog.components) if c.name == "keyring")
    assert dialog.table.item(row, 2).text() == dialog.components[row].licence
    dialog.table.setCurrentCell(row, 0)
    text = dialog.licence_text.toPlainText()
    assert text.startswith("keyring ")
    assert "Permission is hereby granted" in text  # keyring's MIT licence file
    dialog.reject()
    assert not dialog.isVisible()


def test_licence_name_sources() -> None:
    assert licence_name(md.metadata("keyring")) == "MIT"
    meta = md.metadata("PySide6-Essentials")
    assert "LGPL-3.0" in licence_name(meta)


def test_bundle_mode_lists_native_libraries(monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    folder = tmp_path
    for name in ("libssl.so.3", "libsqlite3.so.0", "libQt6Core.so.6"):
        (folder / name).write_bytes(b"")
    monkeypatch.setattr(about_dialog.sys, "_MEIPASS", str(folder), raising=False)
    names = {c.name: c.licence for c in bundled_components()}
    assert names["OpenSSL"] == "Apache-2.0"
    assert "SQLite" in names and "ICU" not in names
