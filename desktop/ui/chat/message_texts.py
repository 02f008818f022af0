"""What a message's header and status line say, in the user's language."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from desktop.chat.message_edits import is_continuation
from desktop.core.messages import Message
from desktop.ui import locale_format
from desktop.ui.error_text import message_error_text


def header_text(message: Message) -> str:
    """"You · 14:05", "Assistant · gpt-4o · 14:05" (the time as the locale writes it)."""
    when = locale_format.stamp(message.created_at)
    if is_continuation(message):
        text = QCoreApplication.translate("MessageWidget", "You asked to continue · {time}")
    elif message.role == "user":
        text = QCoreApplication.translate("MessageWidget", "You · {time}")
    elif message.model:
        text = QCoreApplication.translate("MessageWidget", "Assistant · {model} · {time}")
    else:
        text = QCoreApplication.translate("MessageWidget", "Assistant · {time}")
    return text.format(model=message.model, time=when)


def status_text(message: Message) -> str | None:
    """The line under a stopped, interrupted or failed answer (None for the others)."""
    if message.status == "stopped":
        return QCoreApplication.translate("MessageWidget", "■ Stopped")
    if message.status == "interrupted":
        return QCoreApplication.translate(
            "MessageWidget", "⚠ Interrupted — the app closed while this answer was streaming")
    if message.status == "error":
        return "✗ " + message_error_text(message)
    return None
