"""The suite's own hygiene (tests/conftest.py): a widget a test closed is gone before the
next test starts, even while Python still holds it (a window is usually held by its own
signal connections until the garbage collector runs), so widgets do not pile up over
the session and make every later walk over the application's widgets (a theme change,
a zoom) slower."""

from __future__ import annotations

from typing import Any

import qasync
from PySide6.QtWidgets import QApplication, QWidget

NAME = "widget-cleanup-probe"
HELD: list[QWidget] = []  # as a reference cycle would hold a window


def test_a_test_closes_its_widget(qtbot: Any, qt_loop: qasync.QEventLoop) -> None:
    widget = QWidget()
    widget.setObjectName(NAME)
    qtbot.addWidget(widget)  # closed and deleteLater()'d by pytest-qt after the test
    widget.show()
    HELD.append(widget)
    assert any(w.objectName() == NAME for w in QApplication.allWidgets())


def test_the_next_test_no_longer_finds_it(qapp: QApplication) -> None:
    # Runs after the test above (same module, same worker under pytest-xdist's loadscope).
    assert not any(w.objectName() == NAME for w in QApplication.allWidgets())
