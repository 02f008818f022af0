"""Changing a saved chat's messages: delete from a message on, fork into a new chat,
and the question that asks the model to continue a cut-off answer. Qt-free.

Messages form a tree (:mod:`desktop.storage.tree`); the chat shows its active
branch. Deleting a message deletes everything under it — the rest of its branch and
any other versions below it — and the chat falls back to the branch above. A fork
copies the active branch down to a message (new ids, same text) into a new chat with
the same provider, model, assistant, prompt, workspace and switches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.errors import ConfigError
from desktop.core.messages import Message, new_id

if TYPE_CHECKING:
    from desktop.storage.branches import ActiveBranch
    from desktop.storage.sessions import SessionStore

#: What a "Continue" turn asks; the user message carries ``CONTINUATION_KEY`` so the
#: chat can show it as a small marker rather than as something the user typed.
CONTINUE_PROMPT = ("Continue exactly where your previous answer stopped. Do not repeat "
                   "anything; do not start over.")
CONTINUATION_KEY = "continuation"


def can_continue(message: Message) -> bool:
    """An answer that was stopped, cut off by the length limit or by a crash."""
    return message.role == "assistant" and (
        message.status in ("stopped", "interrupted") or message.finish_reason == "length")


def is_continuation(message: Message) -> bool:
    return message.role == "user" and bool(message.provider_data.get(CONTINUATION_KEY))


class MessageEdits:
    def __init__(self, sessions: SessionStore) -> None:
        self.sessions = sessions

    def delete_from(self, session_id: str, message_id: str) -> ActiveBranch:
        """Delete ``message_id`` and everything after it; the chat's branch now."""
        if not self.sessions.delete_message(message_id):
            raise ConfigError("That message is already gone.", code="message_gone")
        return self.sessions.load_active_branch(session_id)

    def fork(self, session_id: str, up_to: str) -> str:
        """A new chat holding the active branch of ``session_id`` down to message
        ``up_to`` (with the tool results that answer it); returns its id."""
        info = self.sessions.get_session(session_id)
        if info is None:
            raise ConfigError("That chat is gone.", code="chat_gone")
        messages = self.sessions.load_active_branch(session_id).messages
        ids = [m.id for m in messages]
        if up_to not in ids:
            raise ConfigError("That message is not on the chat's shown branch.",
                              code="message_not_shown")
        end = ids.index(up_to) + 1
        while end < len(messages) and messages[end].role == "tool":
            end += 1  # an answer's tool calls keep their results
        copy = self.sessions.create_session(
            title=f"{info.title} (fork)", provider_id=info.provider_id, model=info.model,
            workspace=info.workspace, extra=dict(info.extra or {}),
            system_prompt=info.system_prompt, assistant_id=info.assistant_id)
        parent: str | None = None
        for message in messages[:end]:
            clone = message.model_copy(deep=True, update={"id": new_id("msg_"),
                                                          "parent_id": None})
            self.sessions.add_message(copy.id, clone, parent)
            parent = clone.id
        return copy.id
