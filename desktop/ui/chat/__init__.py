"""The conversation pane: the virtual message column, message widgets and the composer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.lazy import lazy_names

if TYPE_CHECKING:
    from desktop.ui.chat import attach_filters

#: The chat pane's parts loaded when first used: the module of the attach dialog's
#: filters (they list what the knowledge indexer reads).
_LAZY: dict[str, str] = {"attach_filters": "desktop.ui.chat.attach_filters"}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = ["attach_filters"]
