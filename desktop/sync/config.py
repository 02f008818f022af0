"""The window's sync configuration: machine-local settings and secrets, and the engine
they describe.

The target, user name and on/off switch are stored with :meth:`SettingsStore.set_value`
under ``sync`` — not in :class:`AppSettings`, which is itself synced: another machine
has its own target path and credentials. The passphrase, the WebDAV password and the S3
secret key go to the :class:`SecretStore` (keyring) and nowhere else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import msgspec

from desktop import sync
from desktop.storage.settings_store import SettingsStore
from desktop.sync.errors import SyncError
from desktop.sync.targets.registry import kind_of_scheme, target_class, url_forms

if TYPE_CHECKING:
    # Imported where used: the window reads the configuration at start-up and needs
    # neither the engine nor the HTTP targets (and their crypto) until the first run.
    from desktop.core.proxy import Proxy
    from desktop.storage.database import Database
    from desktop.storage.secrets import SecretStore
    from desktop.sync.run import SyncEngine
    from desktop.sync.targets.base import Target

CONFIG_KEY = "sync"
PASSPHRASE_ID = "sync:passphrase"
#: The keyring ids of the targets' secrets (each target class names its own: secret_id).
PASSWORD_ID = "sync:password"  # WebDAV
S3_SECRET_ID = "sync:s3-secret"


class SyncConfig(msgspec.Struct, frozen=True):
    """Where and how this machine syncs (its secrets are in the keyring, not here)."""

    url: str = ""
    user: str = ""  # the WebDAV user name, or the S3 access key id
    enabled: bool = False
    endpoint: str = ""  # S3-compatible storage other than AWS (MinIO, R2, B2)
    region: str = ""  # S3
    # The largest file uploaded, in MB (0: the default); changes are split below it.
    # Set it below a server's own limit to spare the refused first try.
    max_upload_mb: float = 0.0

    @property
    def kind(self) -> str:
        """``file``, ``webdav``, ``s3`` or ``""`` (no or unknown URL)."""
        return kind_of_scheme(urlsplit(self.url.strip()).scheme)

    @property
    def configured(self) -> bool:
        return bool(self.kind)

    def to_json(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)


def load_config(store: SettingsStore) -> SyncConfig:
    raw = store.get_value(CONFIG_KEY, None)
    if not isinstance(raw, dict):
        return SyncConfig()
    return SyncConfig(
        url=str(raw.get("url") or ""), user=str(raw.get("user") or ""),
        enabled=bool(raw.get("enabled")), endpoint=str(raw.get("endpoint") or ""),
        region=str(raw.get("region") or ""), max_upload_mb=_number(raw.get("max_upload_mb")),
    )


def _number(value: object) -> float:
    try:
        return max(0.0, float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0


def save_config(store: SettingsStore, config: SyncConfig) -> None:
    store.set_value(CONFIG_KEY, config.to_json())


def open_config_target(config: SyncConfig, secret: str | None,
                       proxy: Proxy | None = None) -> Target:
    """The target of ``config``; ``secret`` is its WebDAV password or S3 secret key;
    ``proxy``: the one of Preferences."""
    cls = target_class(config.kind)
    if cls is None:
        raise SyncError(f"Unknown sync target {config.url!r}: use {url_forms()}.",
                        code="sync_unknown_target",
                        params={"url": config.url, "forms": url_forms()})
    return cls.from_settings(config, secret, proxy)


def target_secret_id(config: SyncConfig) -> str | None:
    cls = target_class(config.kind) if config.kind else None
    return cls.secret_id if cls is not None else None


def engine_from_config(db: Database, config: SyncConfig, secrets: SecretStore,
                       proxy: Proxy | None = None) -> SyncEngine:
    """The engine for the stored configuration. Raises :class:`SyncError` when it is
    incomplete (no passphrase, a bad URL, missing S3 keys)."""
    passphrase = secrets.get(PASSPHRASE_ID)
    if not passphrase:
        raise SyncError("Set the sync passphrase in Settings → Sync.",
                        code="sync_passphrase_unset")
    secret_id = target_secret_id(config)
    secret = secrets.get(secret_id) if secret_id else None
    return sync.SyncEngine(db, open_config_target(config, secret, proxy), passphrase,
                           max_upload=sync.max_upload_bytes(config.max_upload_mb or None))


def check_connection(db: Database, config: SyncConfig, secret: str | None,
                    passphrase: str, proxy: Proxy | None = None) -> str:
    """Open the target, check the passphrase against it (an empty target is set up with
    it, as the first sync would) and list its devices: one line saying what was found.
    Raises :class:`SyncError` with the reason. Nothing local changes."""
    target = open_config_target(config, secret, proxy)
    try:
        sync.SyncEngine(db, target, passphrase).unlock()
        devices = [d for d in target.list(sync.DEVICES_DIR) if not d.startswith(".")]
    finally:
        target.close()
    if not devices:
        return "Connected: the passphrase is set; no device has synced here yet."
    count = f"{len(devices)} device{'s' if len(devices) != 1 else ''}"
    return f"Connected: the passphrase opens the data of {count}."
