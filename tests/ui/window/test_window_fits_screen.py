"""The main window opens within its screen: its default 1280x820, or a size saved on
a larger screen, is shrunk to the screen's free area (dialogs are centred over the
window: over one wider than the screen they were pushed off its edge)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QByteArray, QRect

from desktop.storage.window_state import WindowState
from desktop.ui.window.launch import new_window
from desktop.ui.window.main_window import MainWindow


def _inside(window: MainWindow) -> None:
    screen = window.screen()
    assert screen is not None
    room: QRect = screen.availableGeometry()
    assert window.width() <= room.width() and window.height() <= room.height()
    assert room.contains(window.geometry())


def test_the_default_size_is_shrunk_to_a_small_screen(qtbot: Any) -> None:
    window = new_window(WindowState())
    qtbot.addWidget(window)
    screen = window.screen()
    assert screen is not None
    # (the offscreen screen is smaller than the default size: the case this is about)
    assert screen.availableGeometry().height() < 820 + 48
    _inside(window)


def test_a_size_saved_on_a_larger_screen_is_shrunk(qtbot: Any) -> None:
    big = MainWindow(state=WindowState())
    qtbot.addWidget(big)
    big.setGeometry(300, 200, 2400, 1500)
    saved = bytes(big.saveGeometry().toBase64().data()).decode("ascii")
    again = new_window(WindowState(geometry=saved))
    qtbot.addWidget(again)
    _inside(again)
    assert QByteArray.fromBase64(saved.encode("ascii"))  # (a real saved geometry)
