"""Looking for a newer version of the app in a release feed (GitHub Releases API format)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.updates.checker import UpdateChecker

#: Loaded when the check first runs (after the window is up): the checker and the
#: version parsing it needs.
_LAZY: dict[str, str] = {"UpdateChecker": "desktop.updates.checker"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = ["UpdateChecker"]
