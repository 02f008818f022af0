"""What the providers dialog says about a provider: its line in the list, why it is
read-only, and where its API key is kept. Plain functions of the config, so the dialog,
its list and the form share one wording."""

from __future__ import annotations

from desktop.core.settings import ProviderConfig
from desktop.providers.presets import PRESETS, ProviderPreset
from desktop.storage.secrets import SecretStore


def preset_of(config: ProviderConfig) -> ProviderPreset:
    """The config's preset; the "custom" one for unknown ids."""
    return PRESETS.get(config.preset) or PRESETS["custom"]


def item_text(config: ProviderConfig, *, draft: bool = False) -> str:
    """The provider's line in the dialog's list, with its origin."""
    if draft:
        return f"{config.name} — not saved"
    if config.source == "environment":
        return f"{config.name} — from environment ({config.api_key_env or 'no key'})"
    if config.source == "detected":
        return f"{config.name} — detected"
    return config.name


def source_text(config: ProviderConfig) -> str:
    """Why a provider is read-only ("" for the user's own)."""
    if config.source == "environment":
        return (
            f"From the environment ({config.api_key_env}). Read-only here: its key stays "
            "in the environment and is never copied into Assista."
        )
    if config.source == "detected":
        return f"{preset_of(config).name} is running on this computer. Add it to edit it."
    return ""


def key_note(config: ProviderConfig, secrets: SecretStore) -> str:
    """Where the key of ``config`` is kept."""
    if config.source == "environment":
        return f"The key is read from {config.api_key_env} each time Assista starts."
    if not secrets.is_secure:
        return (
            "No system keyring found: keys are stored in a file readable only by you "
            f"({secrets.path})"
        )
    return f"Keys are stored in the system keyring ({secrets.backend_name})"
