"""The theme's state lives in an object per application, not in module globals."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QApplication

from desktop.ui import theme


def test_the_running_app_owns_one_theme_and_another_is_independent(qtbot: Any) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    assert theme.current() is theme.current()
    assert theme.current().parent() is app  # lives and dies with the application
    own = theme.Theme()
    before = theme.zoom()
    app_font = app.font().pointSizeF()
    own.set_zoom(3)
    assert app.font().pointSizeF() == app_font  # only the app's own theme restyles it
    own.dark = not theme.is_dark()
    assert theme.zoom() == before and own.zoom == 3  # the app's theme did not change
    assert own.colors() is not theme.colors()
    changes: list[int] = []
    own.changed.connect(lambda: changes.append(own.zoom))
    own.set_zoom(own.zoom + 1)
    assert changes == [4]
    theme.set_zoom(before)  # (the app's theme unchanged by this test)
