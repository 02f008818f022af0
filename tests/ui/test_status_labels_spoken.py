"""Status labels named for what they are ("Answer status", "Connection status") give
their text to a screen reader too: Qt reads the accessible name instead of the text,
so "✓ 3 models found" or "Waiting for your approval" was never heard (found by the
first-run journey, which reads the window over AT-SPI)."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAccessible

from desktop.ui.chat.turn_status import TurnStatus
from desktop.ui.providers.provider_form import ProviderForm


def spoken(widget: Any) -> str:
    face = QAccessible.queryAccessibleInterface(widget)
    return " ".join((face.text(QAccessible.Text.Name), face.text(QAccessible.Text.Description)))


def test_the_answer_status_is_heard(qtbot: Any) -> None:
    status = TurnStatus()
    qtbot.addWidget(status)
    status.show_thinking()
    assert "Thinking" in spoken(status.label)


def test_the_connection_status_is_heard(qtbot: Any) -> None:
    form = ProviderForm()
    qtbot.addWidget(form)
    form.set_status("✓ 3 models found", "ok")
    assert "3 models found" in spoken(form.status_label)
