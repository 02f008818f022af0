"""The server-question card on its own: a form built from each JSON-schema type, URL
mode, and server text shown as plain text."""

from __future__ import annotations

from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QLineEdit

from desktop.chat.server_questions import PendingQuestion
from desktop.tools.mcp.server_requests import ElicitationAnswer, ElicitationRequest
from desktop.ui.tools.server_question_card import ServerQuestionCard

SCHEMA = {"type": "object", "required": ["size"], "properties": {
    "size": {"type": "string", "title": "Size", "enum": ["small", "large"], "default": "large"},
    "count": {"type": "integer", "description": "How many"},
    "gift": {"type": "boolean", "description": "Wrap it", "default": True},
    "level": {"type": "number", "enum": [1.5, 2.5]},
}}


def pending(qt_loop: qasync.QEventLoop, request: ElicitationRequest) -> PendingQuestion:
    return PendingQuestion("q1", "elicitation", request, "chat-1", "My chat",
                           _future=qt_loop.create_future())


def test_a_form_from_the_schema_returns_typed_values(qtbot: Any,
                                                     qt_loop: qasync.QEventLoop) -> None:
    question = pending(qt_loop, ElicitationRequest("shop", "<b>Order</b> details?", SCHEMA))
    card = ServerQuestionCard(question)
    qtbot.addWidget(card)
    size, count, gift, level = (card.fields[n] for n in ("size", "count", "gift", "level"))
    assert isinstance(size, QComboBox) and size.currentText() == "large"
    assert isinstance(count, QLineEdit) and count.placeholderText() == "How many"
    assert isinstance(gift, QCheckBox) and gift.isChecked()
    assert isinstance(level, QComboBox) and level.count() == 2
    messages = [label for label in card.findChildren(QLabel)
                if label.text() == "<b>Order</b> details?"]
    assert messages and messages[0].textFormat() == Qt.TextFormat.PlainText
    count.setText("two")
    card.submit()
    assert card.problem.text() == "count must be an integer" and not question.done
    count.setText("2")
    level.setCurrentIndex(1)
    card.submit()
    assert question.done
    assert question._future.result() == ElicitationAnswer(
        "accept", {"size": "large", "count": 2, "gift": True, "level": 2.5})
    assert not card.isEnabled()


def test_url_mode_shows_the_address_and_confirms(qtbot: Any,
                                                 qt_loop: qasync.QEventLoop) -> None:
    request = ElicitationRequest("auth", "Connect your account", url="https://example.org/x")
    question = pending(qt_loop, request)
    card = ServerQuestionCard(question)
    qtbot.addWidget(card)
    assert card.fields == {}
    assert any(label.text() == "https://example.org/x" for label in card.findChildren(QLabel))
    assert card.submit_button.text() == "Done"
    card.submit_button.click()
    assert question._future.result() == ElicitationAnswer("accept")


def test_titled_choices_show_their_titles_and_send_their_values(
        qtbot: Any, qt_loop: qasync.QEventLoop) -> None:
    schema = {"type": "object", "required": ["size"], "properties": {
        "size": {"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]},
        "tone": {"type": "string", "oneOf": [{"const": "w", "title": "Warm"},
                                              {"const": "c", "title": "Cool"}]}}}
    question = pending(qt_loop, ElicitationRequest("shop", "Pick", schema))
    card = ServerQuestionCard(question)
    qtbot.addWidget(card)
    size, tone = card.fields["size"], card.fields["tone"]
    assert isinstance(size, QComboBox) and isinstance(tone, QComboBox)
    assert [size.itemText(i) for i in range(size.count())] == ["Small", "Large"]
    assert [tone.itemText(i) for i in range(tone.count())] == ["Warm", "Cool"]
    size.setCurrentIndex(1)
    tone.setCurrentIndex(1)
    card.submit()
    assert question._future.result() == ElicitationAnswer("accept", {"size": "l", "tone": "c"})
