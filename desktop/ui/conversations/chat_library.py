"""Managing saved chats from the window: open at a message, pin, archive, duplicate,
trash, restore, erase.

Each action goes to the :class:`SessionStore` and is reported through the
controller's signals (``sessionsChanged`` redraws the list, ``errorOccurred`` shows
a one-line error), so the list widget never touches storage itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop.core.errors import AssistaError
from desktop.ui.error_text import exception_text

if TYPE_CHECKING:
    from desktop.ui.window.controller import ChatController


class ChatLibrary:
    def __init__(self, controller: ChatController) -> None:
        self.controller = controller
        self.store = controller.services.sessions

    def _do(self, action: Callable[[], object]) -> bool:
        try:
            action()
        except AssistaError as exc:
            self.controller.errorOccurred.emit(exception_text(exc))
            return False
        self.controller.sessionsChanged.emit()
        return True

    def set_pinned(self, session_id: str, pinned: bool) -> bool:
        return self._do(lambda: self.store.set_pinned(session_id, pinned))

    def set_archived(self, session_id: str, archived: bool) -> bool:
        """Archive (hide from the main list; it stays open if it is shown) or bring back."""
        return self._do(lambda: self.store.set_archived(session_id, archived))

    def duplicate_session(self, session_id: str) -> bool:
        """A copy of the chat with every branch, first in the list."""
        return self._do(lambda: self.store.duplicate_session(session_id))

    def delete_session(self, session_id: str) -> bool:
        """Move to the trash (the controller leaves the chat first if it is open)."""
        try:
            self.controller.delete_session(session_id)
        except AssistaError as exc:
            self.controller.errorOccurred.emit(exception_text(exc))
            return False
        return True

    def restore_session(self, session_id: str) -> bool:
        return self._do(lambda: self.store.restore_session(session_id))

    def purge_session(self, session_id: str) -> bool:
        """Erase one chat in the trash for good."""
        return self._do(lambda: self.store.purge_deleted(session_id=session_id))

    def empty_trash(self) -> bool:
        return self._do(self.store.purge_deleted)

    def open_at(self, session_id: str, message_id: str | None) -> bool:
        """Open a chat on the branch through ``message_id`` (a search hit)."""
        c = self.controller
        if c.busy and session_id == c.session_id:
            return True  # the running chat stays as it is
        if message_id:
            try:
                self.store.switch_branch(session_id, message_id)
            except AssistaError as exc:
                c.errorOccurred.emit(exception_text(exc))
                return False
        c.open_session(session_id)
        return c.session_id == session_id
