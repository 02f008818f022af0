"""The providers' presets (templates for a new provider) and each wire API's facts, as
the window lists and shows them. The window takes them from here, not from the provider
layer (issue 26: the interface imports no provider module); importing this costs what
importing :mod:`desktop.providers.presets` does."""

from __future__ import annotations

from desktop.providers.presets import (
    PRESETS,
    ProviderPreset,
    all_presets,
    find_preset,
    get_preset,
)
from desktop.providers.registry import wire_api

__all__ = ["PRESETS", "ProviderPreset", "all_presets", "find_preset", "get_preset", "wire_api"]
