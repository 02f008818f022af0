"""Sync as one service for the window: its machine-local configuration, the secrets it
keeps in the keyring (the passphrase, the target's password or key), what the last run
left (the status), and the engine that runs it. Qt-free.

The window's sync scheduler and the Sync dialog are handed this, never the app context:
they need the data folder's database, the settings store, the secret store and the
proxy only through what is here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop.sync.config import (
    SyncConfig,
    check_connection,
    engine_from_config,
    load_config,
    save_config,
)
from desktop.sync.status import SyncStatus, read_status

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy
    from desktop.storage.database import Database
    from desktop.storage.secrets import SecretStore
    from desktop.storage.settings_store import SettingsStore
    from desktop.sync.run import SyncEngine


class SyncService:
    def __init__(self, db: Database, store: SettingsStore, *,
                 secrets: Callable[[], SecretStore], proxy: Callable[[], Proxy]) -> None:
        """``secrets``: the secret store, opened when first asked for; ``proxy``: the
        proxy as Preferences say now (read per connection)."""
        self._db = db
        self._store = store
        self._secrets = secrets
        self._proxy = proxy

    def config(self) -> SyncConfig:
        return load_config(self._store)

    def save_config(self, config: SyncConfig) -> None:
        save_config(self._store, config)

    def secret(self, secret_id: str) -> str | None:
        """A secret sync keeps (raises AssistaError when the store cannot be read)."""
        return self._secrets().get(secret_id)

    def set_secret(self, secret_id: str, value: str) -> None:
        self._secrets().set(secret_id, value)

    def status(self) -> SyncStatus:
        """When it last synced, how many changes wait, the last run's error."""
        return read_status(self._db)

    def engine(self, config: SyncConfig) -> SyncEngine:
        """The engine for ``config`` (it keeps the key derived from the passphrase)."""
        return engine_from_config(self._db, config, self._secrets(), self._proxy())

    def check(self, config: SyncConfig, secret: str | None, passphrase: str) -> str:
        """Test the connection (nothing local changes); raises SyncError with why."""
        return check_connection(self._db, config, secret, passphrase, self._proxy())
