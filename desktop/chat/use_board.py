"""The default of :meth:`~desktop.chat.service.ChatService.start`'s ``approver`` and
``confirm``."""

from __future__ import annotations

import enum


class UseBoard(enum.Enum):
    """The default of :meth:`ChatService.start`'s ``approver`` and ``confirm``: the
    service's own (approvals on the board, "Continue?" asked of the chat's observers).
    ``None`` means something else: nobody to ask (the call is denied, the loop stops)."""

    BOARD = "board"


BOARD = UseBoard.BOARD
