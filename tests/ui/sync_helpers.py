"""Shared by the window's sync tests: a configured data folder and another device."""

from __future__ import annotations

from pathlib import Path

from desktop.app import AppContext
from desktop.storage.database import Database
from desktop.storage.sessions import SessionStore
from desktop.sync.config import PASSPHRASE_ID, SyncConfig, save_config
from desktop.sync.run import SyncEngine, SyncReport
from desktop.sync.targets.address import open_target
from tests.ui.conversation_helpers import text_message

PASSPHRASE = "correct horse battery staple"


def configure(ctx: AppContext, url: str, *, enabled: bool = True, user: str = "",
              secret: str | None = None, secret_id: str | None = None) -> None:
    save_config(ctx.settings_store, SyncConfig(url=url, user=user, enabled=enabled))
    ctx.secrets.set(PASSPHRASE_ID, PASSPHRASE)
    if secret is not None and secret_id is not None:
        ctx.secrets.set(secret_id, secret)


class OtherDevice:
    """A second data folder syncing with the same target (as another computer would)."""

    def __init__(self, folder: Path, url: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.db = Database(folder / "assista.sqlite3")
        self.sessions = SessionStore(self.db)
        self.url = url

    def sync(self, passphrase: str = PASSPHRASE) -> SyncReport:
        target = open_target(self.url, {})
        try:
            return SyncEngine(self.db, target, passphrase).run()
        finally:
            target.close()

    def chat(self, title: str, *texts: str) -> str:
        info = self.sessions.create_session(title)
        for text in texts:
            self.say(info.id, text)
        return info.id

    def say(self, chat_id: str, text: str, role: str = "user") -> None:
        self.sessions.save_message(chat_id, text_message(role, text))

    def close(self) -> None:
        self.db.close()
