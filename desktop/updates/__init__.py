"""Looking for a newer version of the app in a release feed (GitHub Releases API format)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.lazy import lazy_names

if TYPE_CHECKING:
    from desktop.updates.checker import UpdateChecker

#: Loaded when the check first runs (after the window is up): the checker and the
#: version parsing it needs.
_LAZY: dict[str, str] = {"UpdateChecker": "desktop.updates.checker"}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = ["UpdateChecker"]
