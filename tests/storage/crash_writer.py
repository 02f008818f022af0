"""Child process for test_crash.py: writes to the database until it is killed.

Usage: python crash_writer.py DB_PATH

Prints ``session <id>`` once, then ``committed <id> <text length>`` after each
save of a message that is complete, always *after* save_message returned (so
the line means "this row is committed"). A streaming message is re-saved on
every iteration with growing text, like a live answer; it is rotated every
200 iterations (the next streaming message is saved before the old one is
completed, so one streaming row always exists). No sleeps: it writes as fast
as it can, which maximizes the chance of being killed mid-transaction.
"""

from __future__ import annotations

import sys

from desktop.core.messages import Message, TextPart
from desktop.storage.database import Database
from desktop.storage.sessions import SessionStore

MAX_ITERATIONS = 200_000  # safety net if the parent never kills us


def main(db_path: str) -> None:
    db = Database(db_path)
    store = SessionStore(db)
    session = store.create_session("crash test")
    print(f"session {session.id}", flush=True)

    def report(message: Message) -> None:
        print(f"committed {message.id} {len(message.text)}", flush=True)

    streaming = Message(role="assistant", status="streaming", parts=[TextPart(text="")])
    for i in range(1, MAX_ITERATIONS):
        streaming.parts[0] = TextPart(text=streaming.text + f"tok{i} ")
        store.save_message(session.id, streaming)
        if i % 3 == 0:
            user = Message.user(f"user message {i} " + "u" * (i % 50))
            store.save_message(session.id, user)
            report(user)
        if i % 200 == 0:
            finished = streaming
            streaming = Message(role="assistant", status="streaming", parts=[TextPart(text="")])
            store.save_message(session.id, streaming)
            finished.status = "complete"
            store.save_message(session.id, finished)
            report(finished)
    db.close()


if __name__ == "__main__":
    main(sys.argv[1])
