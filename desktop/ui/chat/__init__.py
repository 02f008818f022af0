"""The conversation pane: the virtual message column, message widgets and the composer."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.ui.chat import attach_filters

#: The chat pane's parts loaded when first used: the module of the attach dialog's
#: filters (they list what the knowledge indexer reads).
_LAZY: dict[str, str] = {"attach_filters": "desktop.ui.chat.attach_filters"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return importlib.import_module(module)  # (a submodule: it is the attribute now)


__all__ = ["attach_filters"]
