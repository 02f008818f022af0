"""The database's integrity check, run on a thread while the window loads.

``PRAGMA quick_check`` reads the whole file: 15-35 ms for 22 MB here, which was the
longest stall left while the window was filling in. SQLite lets go of the GIL while it
reads, so on a thread started while the window imports its modules it costs the event
loop nothing; the database is then opened without checking again. A damaged file is
left to :func:`~desktop.storage.recovery.open_database`, which checks again and
recovers it.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from desktop.storage.stale_leaves import stale_leaf_sessions

# (imported before the window's first frame: nothing heavier than sqlite3 here)

log = logging.getLogger(__name__)

# quick_check reads the whole file: about 1-4 s for 850 MB (1M messages), so unless the
# last run ended badly it runs only on files below this size.
VERIFY_AUTO_MAX_BYTES = 64 * 1024 * 1024


class IntegrityCheck:
    def __init__(self, path: Path, *, after_unclean_exit: bool) -> None:
        self.path = path
        self._result: list[str] | None = None  # None: not run, or could not run
        self._stale: list[tuple[str, str | None]] | None = None
        self._thread: threading.Thread | None = None
        self._check = False
        try:
            size = path.stat().st_size
        except OSError:
            return  # no database yet: nothing to check
        # (the same rule as opening: always after a crash, else only below a size; the
        # search for branches to restore runs either way)
        self._check = after_unclean_exit or size < VERIFY_AUTO_MAX_BYTES
        self._thread = threading.Thread(target=self._run, name="assista-db-check",
                                        daemon=True)

    def start(self) -> None:
        if self._thread is not None:
            self._thread.start()

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds``; True once the check is over (or never ran)."""
        if self._thread is None or not self._thread.is_alive():
            return True
        self._thread.join(seconds)
        return not self._thread.is_alive()

    def verify(self) -> bool | None:
        """``verify`` for opening: False when this check found the file sound, True
        when it found damage (the opening checks again, then recovers the file),
        None when it did not run (the opening decides)."""
        if self._result is None:
            return None
        return self._result != ["ok"]

    def stale_leaves(self) -> list[tuple[str, str | None]] | None:
        """The chats whose active branch needs repair, found on the same thread after
        a sound check or none (a big file; searching every chat held the window
        40-170 ms at 10,000 chats); None when not found (opening looks then). Nothing writes the
        database between the check and the opening: this process holds its lock."""
        return self._stale if self._result in (["ok"], None) else None

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(f"{self.path.absolute().as_uri()}?mode=ro", uri=True,
                                   timeout=5.0, check_same_thread=False)
            try:
                if self._check:
                    self._result = [str(row[0]) for row in
                                    conn.execute("PRAGMA quick_check(20)").fetchall()]
                if self._result in (["ok"], None):
                    try:
                        self._stale = stale_leaf_sessions(conn)
                    except sqlite3.Error:  # (an older schema, damage: opening looks)
                        self._stale = None
            finally:
                conn.close()
        except sqlite3.OperationalError as exc:  # locked, unreadable: opening checks
            log.info("integrity check of %s did not run: %s", self.path, exc)
        except sqlite3.DatabaseError as exc:  # not a database, or damaged past reading
            self._result = [str(exc)]
