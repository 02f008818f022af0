"""A question typed while the window loads: sent as soon as a turn can run, not once
the whole window is built.

The window shows a skeleton (:mod:`desktop.ui.window.startup_skeleton`) whose message box
takes typing from the first frame. Once the agent loop, the chat service and the
chat's controller exist (the loop runs), :class:`EarlyQuestion` sends what was typed
when Enter was pressed, in the chat clicked in the skeleton or else the one the user was
last in. The rest of the window (the chat view, the chat list, the side panes...) is
imported and built after that, while the answer streams in; the chat view then shows
the chat with its answer so far, and live from there (:meth:`ChatController.open_session`
replays a running turn). An Enter pressed in the skeleton later is sent at once.

If the question cannot start (no provider, an error), nothing is lost: the text stays in
the box, marked to be sent, and :func:`reopen_last_chat` hands it to the real composer
once the window is built, which sends it and shows why it was not answered.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from desktop.ui.window.startup_skeleton import EarlyTyping, StartupSkeleton, hand_over_typing

if TYPE_CHECKING:
    from desktop.ui.window.controller import ChatController
    from desktop.ui.window.main_window import MainWindow

log = logging.getLogger(__name__)


class EarlyQuestion:
    """Sends the skeleton's question through ``controller`` (before the window has
    attached it), now and at every later Enter until the skeleton is replaced."""

    def __init__(self, window: MainWindow, controller: ChatController) -> None:
        self.window = window
        self.controller = controller
        self.sent = 0  # (questions sent from the skeleton)

    def start(self) -> None:
        skeleton = self._skeleton()
        if skeleton is None:
            return
        skeleton.on_send = self.send
        self.send()

    def send(self) -> None:
        skeleton = self._skeleton()
        box = skeleton.message_box if skeleton is not None else None
        if skeleton is None or box is None or not box.send_requested:
            return
        if not self.window.isVisible():  # closed while loading: kept as a draft instead
            return
        text = box.toPlainText()
        if not text.strip():
            return
        controller = self.controller
        chat = skeleton.chosen_chat or controller.last_chat()
        if chat is not None and controller.session_id != chat:
            controller.open_session(chat)
        chats, chat_ref = controller.service.chats, controller.chat
        draft = chats.draft(chat_ref)  # (the chat's own draft: not what is sent here)
        if not controller.send(text):  # (the composer sends it again and says why)
            log.info("a question typed while the window loaded waits for the window")
            return
        if draft:
            chats.set_draft(chat_ref, draft)
        self.sent += 1
        # The chat it was sent in is the one the window shows (unless another is clicked)
        skeleton.chosen_chat = controller.session_id
        box.send_requested = False
        box.clear()
        box.setReadOnly(False)
        self.window.statusBar().showMessage(QCoreApplication.translate(
            "EarlyQuestion", "Question sent. Opening the chat…"))
        log.info("a question typed while the window loaded was sent before it was built")

    def _skeleton(self) -> StartupSkeleton | None:
        central = self.window.centralWidget()
        return central if isinstance(central, StartupSkeleton) else None


def reopen_last_chat(window: MainWindow) -> None:
    """Open the chat clicked while the window loaded (in the chat list, else in the
    skeleton, or the one a question typed then was sent in), else the one the user was
    in when the app last closed (if it is still there), with what was typed while the
    window loaded: sent in that chat if Enter was pressed (in the skeleton, or in the
    composer while it held sends), else after the chat's draft."""
    controller = window.controller
    box = window.composer.input
    asked = window.composer.release_sends()
    draft = controller.service.chats.draft(controller.chat)
    held, focused = box.toPlainText(), box.hasFocus()
    # (MainWindow._lay_out put the typing after the new chat's draft, which stays its own)
    typed = held[len(draft):].lstrip("\n") if held.startswith(draft) else held
    box.setPlainText(draft)
    session_id = controller.session_id or window.early_chat or controller.last_chat()
    if session_id is not None:
        controller.open_session(session_id)
        window.refresh_sessions()
    if not window.isVisible():  # closed while loading: nothing is sent, the text is kept
        hand_over_typing(box, EarlyTyping(typed, False, False))
        window.chat_pane.save_draft()
    elif (window.early_typing.send or asked) and typed.strip():
        if asked:
            log.info("a question sent while the window opened its chat is sent in it")
        chat_draft = box.toPlainText()
        box.setPlainText(typed)
        box.submitted.emit()
        if not box.toPlainText():  # sent: the chat's own draft comes back
            hand_over_typing(box, EarlyTyping(chat_draft, False, focused))
    else:
        hand_over_typing(box, EarlyTyping(typed, False, focused))
