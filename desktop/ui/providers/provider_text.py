"""What the providers dialog says about a provider: its line in the list, why it is
read-only, and where its API key is kept. Plain functions of the config, so the dialog,
its list and the form share one wording."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from desktop.chat.provider_presets import PRESETS, ProviderPreset, find_preset
from desktop.core.settings import ProviderConfig

if TYPE_CHECKING:
    from desktop.core.services import KeyStore


def preset_of(config: ProviderConfig) -> ProviderPreset:
    """The config's preset; the "custom" one for unknown ids."""
    return find_preset(config.preset) or PRESETS["custom"]


def preset_title(preset: ProviderPreset) -> str:
    """A preset as the interface names it: products by their name, "Custom" in words."""
    if preset.id == "custom":
        return QCoreApplication.translate("ProviderText", "Custom (OpenAI-compatible)")
    return preset.name


def item_text(config: ProviderConfig, *, draft: bool = False) -> str:
    """The provider's line in the dialog's list, with its origin."""
    if draft:
        return QCoreApplication.translate("ProviderText", "{name} — not saved").format(
            name=config.name)
    if config.source == "environment":
        return QCoreApplication.translate(
            "ProviderText", "{name} — from environment ({variable})").format(
            name=config.name, variable=config.api_key_env
            or QCoreApplication.translate("ProviderText", "no key"))
    if config.source == "detected":
        return QCoreApplication.translate("ProviderText", "{name} — detected").format(
            name=config.name)
    return config.name


def source_text(config: ProviderConfig) -> str:
    """Why a provider is read-only ("" for the user's own)."""
    if config.source == "environment":
        return QCoreApplication.translate(
            "ProviderText", "From the environment ({variable}). Read-only here: its key stays "
            "in the environment and is never copied into Assista.").format(
            variable=config.api_key_env)
    if config.source == "detected":
        return QCoreApplication.translate(
            "ProviderText", "{name} is running on this computer. Add it to edit it.").format(
            name=preset_title(preset_of(config)))
    return ""


def key_note(config: ProviderConfig, secrets: KeyStore) -> str:
    """Where the key of ``config`` is kept."""
    if config.source == "environment":
        return QCoreApplication.translate(
            "ProviderText", "The key is read from {variable} each time Assista starts.").format(
            variable=config.api_key_env)
    if not secrets.is_secure:
        return QCoreApplication.translate(
            "ProviderText", "No system keyring found: keys are stored in a file readable only "
            "by you ({file})").format(file=secrets.path)
    return QCoreApplication.translate(
        "ProviderText", "Keys are stored in the system keyring ({keyring})").format(
        keyring=secrets.backend_name)
