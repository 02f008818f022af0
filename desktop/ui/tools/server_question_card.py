"""Questions from MCP servers in the tool panel.

An elicitation becomes a form built from the JSON schema the server sent (text,
numbers, yes/no, a choice for ``enum``), with Submit, Decline and Cancel; in URL
mode the address is shown (and can be opened) and the user confirms. A sampling
request shows exactly what the model would be sent — the system prompt, each
message with its role, the token limit — with Allow and Deny. Everything the
server wrote is plain text. The card answers through the question's ``resolve``
(desktop.chat.server_questions), never by calling the server itself.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.server_questions import PendingQuestion
from desktop.core.messages import ImagePart, TextPart
from desktop.tools.mcp.server_requests import (
    ElicitationAnswer,
    ElicitationRequest,
    SamplingRequest,
    choices,
    coerce_answer,
)
from desktop.ui.error_text import exception_text
from desktop.ui.plain_text import button_text, plain_label, shown

FieldWidget = QLineEdit | QCheckBox | QComboBox


class ServerQuestionCard(QFrame):
    def __init__(self, question: PendingQuestion, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvalCard")
        self.question = question
        self.fields: dict[str, FieldWidget] = {}
        request = question.request
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 10)
        asks = (self.tr("MCP server {0} asks").format(shown(request.server))
                if question.kind == "elicitation"
                else self.tr("MCP server {0} wants the model to answer").format(
                    shown(request.server)))
        title = plain_label(asks)
        title.setObjectName("approvalTitle")
        title.setWordWrap(True)
        layout.addWidget(title)
        if question.chat_title:
            chat = plain_label(self.tr("In “{0}”").format(shown(question.chat_title)))
            chat.setObjectName("toolCardMeta")
            layout.addWidget(chat)
        self.buttons = QHBoxLayout()
        if isinstance(request, ElicitationRequest):
            self._build_elicitation(layout, request)
        elif isinstance(request, SamplingRequest):
            self._build_sampling(layout, request)
        self.problem = plain_label()
        self.problem.setWordWrap(True)
        self.problem.hide()
        layout.addWidget(self.problem)
        self.buttons.addStretch(1)
        layout.addLayout(self.buttons)
        self.setAccessibleName(asks)

    def _button(self, text: str, slot: Any, primary: bool = False) -> QPushButton:
        button = QPushButton(text)
        if primary:
            button.setObjectName("primaryButton")
        button.clicked.connect(slot)
        self.buttons.addWidget(button)
        return button

    # -- elicitation ----------------------------------------------------------------------

    def _build_elicitation(self, layout: QVBoxLayout, request: ElicitationRequest) -> None:
        message = plain_label(shown(request.message, lines=True))
        message.setWordWrap(True)
        layout.addWidget(message)
        if request.url is not None:
            url = plain_label(shown(request.url))
            url.setWordWrap(True)
            layout.addWidget(url)
            self._button(self.tr("Open"), lambda: QDesktopServices.openUrl(QUrl(request.url)))
            self.submit_button = self._button(self.tr("Done"), self.submit, primary=True)
        else:
            form = QFormLayout()
            for name, schema in request.fields.items():
                widget = self._field(schema)
                widget.setAccessibleName(str(schema.get("title") or name))
                label = str(schema.get("title") or name)
                required = name in request.required
                form.addRow(plain_label(shown(label) + (" *" if required else "")), widget)
                self.fields[name] = widget
            layout.addLayout(form)
            self.submit_button = self._button(self.tr("Submit"), self.submit, primary=True)
        self._button(self.tr("Decline"), lambda: self._answer(ElicitationAnswer("decline")))
        self._button(self.tr("Cancel"), lambda: self._answer(ElicitationAnswer("cancel")))

    def _field(self, schema: dict[str, Any]) -> FieldWidget:
        kind = schema.get("type")
        default = schema.get("default")
        allowed = choices(schema)  # (value, title): enum with enumNames, titled oneOf/anyOf
        if kind == "boolean":
            box = QCheckBox(button_text(shown(str(schema.get("description") or ""))))
            box.setChecked(bool(default))
            return box
        if allowed and kind != "array":
            combo = QComboBox()
            for value, title in allowed:
                combo.addItem(shown(title), str(value))  # (shows the title, sends the value)
            if default is not None and combo.findData(str(default)) >= 0:
                combo.setCurrentIndex(combo.findData(str(default)))
            return combo
        edit = QLineEdit("" if default is None else str(default))
        edit.setPlaceholderText(str(schema.get("description") or kind or ""))
        return edit

    def raw_values(self) -> dict[str, str]:
        values: dict[str, str] = {}
        for name, widget in self.fields.items():
            if isinstance(widget, QCheckBox):
                values[name] = "true" if widget.isChecked() else "false"
            elif isinstance(widget, QComboBox):
                data = widget.currentData()
                values[name] = str(data) if data is not None else widget.currentText()
            else:
                values[name] = widget.text()
        return values

    def submit(self) -> None:
        request = self.question.request
        assert isinstance(request, ElicitationRequest)
        if request.url is not None:
            self._answer(ElicitationAnswer("accept"))
            return
        try:
            content = coerce_answer(request, self.raw_values())
        except ValueError as exc:
            self.problem.setText(exception_text(exc))
            self.problem.show()
            return
        for name, schema in request.fields.items():  # choices keep their JSON type
            widget = self.fields[name]
            if isinstance(widget, QComboBox) and schema.get("type") != "string":
                choices = schema.get("enum") or []
                if widget.currentIndex() < len(choices):
                    content[name] = choices[widget.currentIndex()]
        self._answer(ElicitationAnswer("accept", content))

    # -- sampling -------------------------------------------------------------------------

    def _build_sampling(self, layout: QVBoxLayout, request: SamplingRequest) -> None:
        self.messages_view = QPlainTextEdit(self.sampling_text(request))
        self.messages_view.setReadOnly(True)
        self.messages_view.setAccessibleName(self.tr("The messages the server sends"))
        self.messages_view.setFixedHeight(160)
        layout.addWidget(self.messages_view)
        self.submit_button = self._button(self.tr("Allow"), lambda: self._answer(True),
                                          primary=True)
        self._button(self.tr("Deny"), lambda: self._answer(False))

    def sampling_text(self, request: SamplingRequest) -> str:
        """The request exactly as the model would get it."""
        lines = [self.tr("At most {0} tokens.").format(request.max_tokens)]
        if request.system_prompt:
            lines.append(f"[system] {request.system_prompt}")
        for message in request.messages:
            for part in message.parts:
                if isinstance(part, TextPart):
                    lines.append(f"[{message.role}] {part.text}")
                elif isinstance(part, ImagePart):
                    lines.append(f"[{message.role}] " + self.tr("(an image, {0})").format(
                        part.media_type))
        return shown("\n".join(lines), lines=True)

    def _answer(self, answer: ElicitationAnswer | bool) -> None:
        self.question.resolve(answer)
        self.setEnabled(False)


class ServerQuestionsArea(QWidget):
    """The open questions, above the tool calls."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(0, 0, 0, 0)
        self.cards: dict[str, ServerQuestionCard] = {}
        self.hide()

    def ask(self, question: PendingQuestion) -> ServerQuestionCard | None:
        if question.done or question.id in self.cards:
            return None  # replayed after it was answered
        card = ServerQuestionCard(question, self)
        self.cards[question.id] = card
        self.column.addWidget(card)
        self.show()
        return card

    def close_question(self, question_id: str) -> None:
        card = self.cards.pop(question_id, None)
        if card is not None:
            card.hide()
            card.deleteLater()
        self.setVisible(bool(self.cards))

    def clear(self) -> None:
        for question_id in list(self.cards):
            self.close_question(question_id)
