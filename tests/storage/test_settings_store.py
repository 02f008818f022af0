"""SettingsStore: app settings and providers."""

from __future__ import annotations

import pytest

from desktop.core.errors import ConfigError
from desktop.core.settings import AgentSettings, AppSettings, ProviderConfig
from desktop.storage.database import Database
from desktop.storage.settings_store import APP_SETTINGS_KEY, SettingsStore


def _set_raw(db: Database, value: str) -> None:
    db.execute(
        "INSERT INTO settings (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (APP_SETTINGS_KEY, value),
    )


def test_defaults_when_absent(settings_store: SettingsStore) -> None:
    assert settings_store.load() == AppSettings()


def test_save_and_load(settings_store: SettingsStore, db: Database) -> None:
    settings = AppSettings(
        agent=AgentSettings(max_iterations=3, limit_behavior="stop"),
        active_provider_id="prov_1",
        workspace="/home/me/project",
        enabled_tools=["read_file"],
        theme="dark",
    )
    settings_store.save(settings)
    assert settings_store.load() == settings
    assert SettingsStore(db).load() == settings
    settings_store.save(AppSettings())
    assert settings_store.load() == AppSettings()


@pytest.mark.parametrize("raw", ["{not json", "[1, 2]", "42", '"text"', "null"])
def test_corrupt_json_gives_defaults_and_warning(
    raw: str, settings_store: SettingsStore, db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    _set_raw(db, raw)
    with caplog.at_level("WARNING"):
        assert settings_store.load() == AppSettings()
    assert "using defaults" in caplog.text


def test_invalid_fields_reset_others_kept(
    settings_store: SettingsStore, db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    _set_raw(
        db,
        '{"theme": "purple", "agent": {"max_iterations": 0}, "trash_retention_days": 3, '
        '"unknown_future_key": 1, "workspace": "/w"}',
    )
    with caplog.at_level("WARNING"):
        loaded = settings_store.load()
    assert loaded.theme == "system"
    assert loaded.agent == AgentSettings()
    assert loaded.trash_retention_days == 3
    assert loaded.workspace == "/w"
    assert "agent, theme" in caplog.text


def test_free_form_values(settings_store: SettingsStore) -> None:
    assert settings_store.get_value("geometry", default=[1]) == [1]
    settings_store.set_value("geometry", {"w": 800, "h": 600})
    assert settings_store.get_value("geometry") == {"w": 800, "h": 600}
    settings_store.set_value("n", 5)
    assert settings_store.get_value("n") == 5  # TEXT column: no numeric coercion
    assert settings_store.delete_value("n") is True
    assert settings_store.get_value("n") is None


def _provider(name: str, **kw: object) -> ProviderConfig:
    return ProviderConfig(name=name, base_url=f"https://{name}.example/v1", **kw)


def test_providers_crud_keeps_positions(settings_store: SettingsStore) -> None:
    assert settings_store.list_providers() == []
    a, b, c = (
        _provider("a"),
        _provider("b", model="m", headers={"X-Title": "Assista"}),
        _provider("c"),
    )
    for p in (a, b, c):
        settings_store.save_provider(p)
    assert settings_store.list_providers() == [a, b, c]

    a2 = a.model_copy(update={"model": "new-model", "timeout_s": 30.0})
    settings_store.save_provider(a2)
    assert settings_store.list_providers() == [a2, b, c]
    assert settings_store.get_provider(a.id) == a2
    assert settings_store.get_provider("nope") is None

    assert settings_store.delete_provider(b.id) is True
    assert settings_store.delete_provider(b.id) is False
    assert settings_store.list_providers() == [a2, c]
    d = _provider("d")
    settings_store.save_provider(d)
    assert settings_store.list_providers() == [a2, c, d]

    settings_store.reorder_providers([d.id, "missing", a2.id])
    assert [p.name for p in settings_store.list_providers()] == ["d", "a", "c"]


def test_deleting_active_provider_clears_it(settings_store: SettingsStore) -> None:
    p = _provider("p")
    settings_store.save_provider(p)
    settings_store.save(AppSettings(active_provider_id=p.id, theme="dark"))
    settings_store.delete_provider(p.id)
    loaded = settings_store.load()
    assert loaded.active_provider_id is None
    assert loaded.theme == "dark"


@pytest.mark.parametrize("header", ["Authorization", "x-api-key", "API-Key", "x-goog-api-key"])
def test_credential_headers_are_refused(settings_store: SettingsStore, header: str) -> None:
    with pytest.raises(ConfigError, match="looks like a credential"):
        settings_store.save_provider(_provider("p", headers={header: "sk-secret-value-123456"}))
    assert settings_store.list_providers() == []


def test_corrupt_provider_row_is_skipped(
    settings_store: SettingsStore, db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    good = _provider("good")
    settings_store.save_provider(good)
    db.execute("INSERT INTO providers (id, position, config) VALUES ('bad', 9, '{oops')")
    with caplog.at_level("WARNING"):
        assert settings_store.list_providers() == [good]
    assert "Skipping unreadable provider bad" in caplog.text


class CountingSecrets:
    """A secret store in memory that counts how often the settings store opened it."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.opened = 0

    def factory(self) -> CountingSecrets:
        self.opened += 1
        return self

    def get(self, provider_id: str) -> str | None:
        return self.values.get(provider_id)

    def set(self, provider_id: str, key: str) -> None:
        self.values[provider_id] = key


def test_listing_providers_opens_the_secret_store_only_for_those_with_secrets(
        settings_store: SettingsStore) -> None:
    """Opening the keyring is slow and listing providers is on the way to the window."""
    secrets = CountingSecrets()
    settings_store.secrets = secrets.factory
    plain = ProviderConfig(name="Plain", base_url="http://127.0.0.1:1/v1", model="m",
                           headers={"User-Agent": "x"})
    settings_store.save_provider(plain)
    opened = secrets.opened
    assert [p.name for p in settings_store.list_providers()] == ["Plain"]
    assert secrets.opened == opened  # nothing to put back: the store stays closed
    guarded = ProviderConfig(name="Guarded", base_url="https://me:pw@example.test/v1",
                             model="m", headers={"X-Corp-Token": "t0k"})
    settings_store.save_provider(guarded)
    listed = {p.name: p for p in settings_store.list_providers()}
    assert listed["Guarded"].base_url == "https://me:pw@example.test/v1"
    assert listed["Guarded"].headers == {"X-Corp-Token": "t0k"}
    assert listed["Plain"] == plain
    assert secrets.opened > opened
