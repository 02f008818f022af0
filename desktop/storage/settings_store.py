"""App settings (one JSON document) and provider configurations.

API keys are never stored here: they live in :class:`desktop.storage.secrets.SecretStore`.
:meth:`SettingsStore.save_provider` refuses the well-known credential headers (the key
field is for them); a base URL's password and other header values go to the secret
store when one is attached (:mod:`desktop.storage.provider_secrets`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from desktop.core.errors import ConfigError, StorageError
from desktop.core.settings import AppSettings, ProviderConfig
from desktop.storage.database import Database
from desktop.storage.mcp_secrets import Secrets
from desktop.storage.provider_secrets import (
    needs_resolving,
    needs_stashing,
    resolve_provider_secrets,
    stash_provider_secrets,
)

log = logging.getLogger(__name__)

APP_SETTINGS_KEY = "app"

SENSITIVE_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "cookie",
    }
)


class SettingsStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        # The secret store, opened when first needed (AppContext attaches it).
        self.secrets: Callable[[], Secrets] | None = None

    # -- app settings --------------------------------------------------------------

    def load(self) -> AppSettings:
        """The saved settings; defaults when absent. Never raises on bad data.

        Fields that fail validation fall back to their defaults (with a logged
        warning); the other fields are kept. Unreadable JSON gives all defaults.
        """
        raw = self._raw_value(APP_SETTINGS_KEY)
        if raw is None:
            return AppSettings()
        try:
            data = json.loads(raw)
        except ValueError as exc:
            log.warning("Settings are not valid JSON (%s); using defaults", exc)
            return AppSettings()
        if not isinstance(data, dict):
            log.warning("Settings are not a JSON object; using defaults")
            return AppSettings()
        return _validate_leniently(data)

    def save(self, settings: AppSettings) -> None:
        self.set_value(APP_SETTINGS_KEY, settings.model_dump(mode="json"))

    # -- free-form values (UI state: window geometry, splitter sizes...) ---------------

    def get_value(self, key: str, default: Any = None) -> Any:
        """A JSON value stored under ``key``; ``default`` when absent or unreadable."""
        raw = self._raw_value(key)
        if raw is None:
            return default
        try:
            return json.loads(raw)
        except ValueError:
            log.warning("Setting %r is not valid JSON; using the default", key)
            return default

    def set_value(self, key: str, value: Any) -> None:
        try:
            text = json.dumps(value, separators=(",", ":"))
        except (TypeError, ValueError) as exc:
            raise StorageError(f"Setting {key!r} cannot be stored as JSON: {exc}",
                               code="setting_not_json",
                               params={"key": key, "detail": str(exc)}) from exc
        self._db.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, text),
        )

    def delete_value(self, key: str) -> bool:
        return self._db.execute("DELETE FROM settings WHERE key = ?", (key,)) > 0

    # -- providers -----------------------------------------------------------------

    def list_providers(self) -> list[ProviderConfig]:
        """Saved providers in their display order. Unreadable rows are skipped."""
        rows = self._db.query("SELECT id, config FROM providers ORDER BY position, rowid")
        providers: list[ProviderConfig] = []
        for row in rows:
            try:
                config = ProviderConfig.model_validate_json(row["config"])
            except ValidationError as exc:
                log.warning(
                    "Skipping unreadable provider %s: %s",
                    row["id"],
                    str(exc).splitlines()[0],
                )
                continue
            config = config.model_copy(update={"id": row["id"]})
            if self.secrets is not None:
                config = self._with_secrets(config)
            providers.append(config)
        return providers

    def _with_secrets(self, config: ProviderConfig) -> ProviderConfig:
        """``config`` as the app uses it; a row that still holds a credential in clear
        (written before they went to the secret store) is rewritten without it."""
        assert self.secrets is not None
        if not needs_stashing(config) and not needs_resolving(config):
            # Most providers: no store to open (at start, opening the keyring took
            # ~100 ms and listing the providers happens on the way to the first frame).
            return config
        secrets = self.secrets()
        if needs_stashing(config):
            stashed = stash_provider_secrets(config, secrets)
            self._db.execute("UPDATE providers SET config = ? WHERE id = ?",
                             (stashed.model_dump_json(), config.id))
            log.info("moved the credentials of provider %s to the secret store", config.id)
            config = stashed
        return resolve_provider_secrets(config, secrets)

    def get_provider(self, provider_id: str) -> ProviderConfig | None:
        for provider in self.list_providers():
            if provider.id == provider_id:
                return provider
        return None

    def save_provider(self, config: ProviderConfig) -> None:
        """Insert or update by id; an existing provider keeps its position.

        Raises :class:`ConfigError` if a header carries a credential.
        """
        _check_no_credentials(config)
        if self.secrets is not None:
            config = stash_provider_secrets(config, self.secrets())
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO providers (id, position, config) VALUES ("
                " :id, (SELECT COALESCE(MAX(position), -1) + 1 FROM providers), :config)"
                " ON CONFLICT (id) DO UPDATE SET config = excluded.config",
                {"id": config.id, "config": config.model_dump_json()},
            )

    def delete_provider(self, provider_id: str) -> bool:
        """Delete a provider (its API key is the SecretStore's business)."""
        with self._db.transaction() as conn:
            removed = conn.execute("DELETE FROM providers WHERE id = ?", (provider_id,)).rowcount
            if removed:
                settings = self.load()
                if settings.active_provider_id == provider_id:
                    self.save(settings.model_copy(update={"active_provider_id": None}))
            return removed > 0

    def reorder_providers(self, provider_ids: Sequence[str]) -> None:
        """Put the listed providers first, in that order; others keep their relative order."""
        current = [
            row["id"] for row in self._db.query("SELECT id FROM providers ORDER BY position, rowid")
        ]
        wanted = [pid for pid in dict.fromkeys(provider_ids) if pid in current]
        order = wanted + [pid for pid in current if pid not in wanted]
        with self._db.transaction() as conn:
            conn.executemany(
                "UPDATE providers SET position = ? WHERE id = ?",
                [(position, pid) for position, pid in enumerate(order)],
            )

    # -- helpers -------------------------------------------------------------------

    def _raw_value(self, key: str) -> str | None:
        row = self._db.query_one("SELECT value FROM settings WHERE key = ?", (key,))
        if row is None:
            return None
        value = row["value"]
        return value if isinstance(value, str) else None


def _validate_leniently(data: dict[str, Any]) -> AppSettings:
    try:
        return AppSettings.model_validate(data)
    except ValidationError as exc:
        bad = {str(err["loc"][0]) for err in exc.errors() if err["loc"]}
        log.warning(
            "Some settings were invalid and were reset to defaults: %s", ", ".join(sorted(bad))
        )
        kept = {key: value for key, value in data.items() if key not in bad}
    try:
        return AppSettings.model_validate(kept)
    except ValidationError:
        log.warning("Settings could not be read; using defaults")
        return AppSettings()


def _check_no_credentials(config: ProviderConfig) -> None:
    for name, value in config.headers.items():
        if name.strip().lower() in SENSITIVE_HEADERS and value.strip():
            raise ConfigError(
                f"The header {name!r} looks like a credential. Enter the API key in the "
                "provider's key field instead; it is kept in the system keyring, not in "
                "the settings.", code="header_is_credential", params={"name": name}
            )
