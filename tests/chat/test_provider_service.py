"""The providers as one service: what it lists, and its writes keeping the saved row,
the key and the active provider together, observers told after each change."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.app import AppContext
from desktop.core.errors import ConfigError
from desktop.core.settings import ProviderConfig
from desktop.providers.presets import config_from_preset
from desktop.storage.secrets import SecretStore

KEY = "sk-service-key-123456"


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[AppContext]:
    context = AppContext.open(tmp_path / "data", environ={"OPENAI_API_KEY": "sk-env-999999"},
                              log_to_stderr=False)
    context.secrets = SecretStore(context.paths.secrets_path, force_file=True)
    yield context
    context.close()


def test_lists_own_then_environment_then_detected_ones(ctx: AppContext) -> None:
    own = ProviderConfig(name="Mine", base_url="http://127.0.0.1:9/v1")
    ctx.providers.save(own, KEY)
    ctx.providers.add_detected([
        config_from_preset("lmstudio", source="detected", id="detected_lmstudio"),
        # the same address and kind as the user's own: listed once
        own.model_copy(update={"id": "detected_dup", "source": "detected"}),
    ])
    assert [c.id for c in ctx.providers.all()] == [own.id, "env_openai", "detected_lmstudio"]
    assert ctx.providers.get("env_openai") is not None
    assert ctx.providers.get(None) is None
    assert ctx.providers.find("  MINE ") == ctx.providers.get(own.id)
    assert ctx.providers.api_key(ctx.providers.get("env_openai")) == "sk-env-999999"


def test_saving_keeps_the_key_and_makes_the_first_one_active(ctx: AppContext) -> None:
    seen: list[int] = []
    unsubscribe = ctx.providers.subscribe(lambda: seen.append(len(ctx.providers.all())))
    config = ProviderConfig(name="Mine", base_url="http://127.0.0.1:9/v1")
    ctx.providers.save(config, KEY)
    assert seen == [2]  # (told after the change: listed with the environment's one)
    assert ctx.secrets.get(config.id) == KEY
    assert ctx.providers.saved_key(config.id) == KEY
    assert ctx.settings.current.active_provider_id == config.id
    assert ctx.settings_store.load().active_provider_id == config.id

    other = ProviderConfig(name="Other", base_url="http://127.0.0.1:8/v1")
    ctx.providers.save(other, "")  # no key: none saved; the active one stays
    assert ctx.secrets.get(other.id) is None
    assert ctx.settings.current.active_provider_id == config.id
    unsubscribe()
    ctx.providers.save(other, None)
    assert seen == [2, 3]


def test_removing_the_active_one_clears_it_in_the_settings_read_by_everyone(
        ctx: AppContext) -> None:
    config = ProviderConfig(name="Mine", base_url="http://127.0.0.1:9/v1")
    ctx.providers.save(config, KEY)
    told: list[str] = []
    ctx.providers.subscribe(lambda: told.append("changed"))
    assert ctx.providers.remove(config.id)
    assert told == ["changed"]
    assert ctx.secrets.get(config.id) is None
    assert ctx.providers.get(config.id) is None
    # the settings service (what the chat and the window read) follows the store
    assert ctx.settings.current.active_provider_id is None
    assert ctx.providers.active().id == "env_openai"
    assert not ctx.providers.remove(config.id)
    assert told == ["changed"]


def test_a_refused_save_changes_nothing_and_tells_no_one(ctx: AppContext) -> None:
    told: list[str] = []
    ctx.providers.subscribe(lambda: told.append("changed"))
    config = ProviderConfig(name="Bad", base_url="http://127.0.0.1:9/v1",
                            headers={"Authorization": "Bearer sk-in-a-header-123456"})
    with pytest.raises(ConfigError):
        ctx.providers.save(config, KEY)
    assert told == []
    assert ctx.providers.get(config.id) is None
    assert ctx.secrets.get(config.id) is None


def test_a_broken_observer_does_not_stop_the_others(ctx: AppContext) -> None:
    told: list[str] = []

    def broken() -> None:
        raise RuntimeError("observer bug")

    ctx.providers.subscribe(broken)
    ctx.providers.subscribe(lambda: told.append("changed"))
    ctx.providers.save(ProviderConfig(name="Mine", base_url="http://127.0.0.1:9/v1"), KEY)
    assert told == ["changed"]


def test_detected_ones_are_adopted_as_the_users_own(ctx: AppContext) -> None:
    detected = config_from_preset("lmstudio", source="detected", id="detected_lmstudio")
    ctx.providers.add_detected([detected])
    adopted = ctx.providers.adopt(detected)
    assert adopted.source == "user" and adopted.id != detected.id
    assert [c.id for c in ctx.settings_store.list_providers()] == [adopted.id]
    assert ctx.settings.current.active_provider_id == adopted.id
    # (one per address: the adopted one hides the detected one)
    assert "detected_lmstudio" not in [c.id for c in ctx.providers.all()]
