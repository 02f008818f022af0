"""What the window's pieces may ask of the app's services, as types.

A widget is handed the narrow service it uses (never the whole app context) and names
its type from here, so the interface layer imports no storage module to annotate a
parameter. The services themselves are built by the composition root
(:mod:`desktop.app`): :class:`~desktop.storage.settings_service.SettingsService` is a
:class:`SettingsSource`. Qt-free, like the rest of :mod:`desktop.core`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from desktop.core.settings import AppSettings

#: ``observer(old, new)``: called after a change of the settings is saved.
SettingsObserver = Callable[[AppSettings, AppSettings], None]


class SettingsSource(Protocol):
    """The app's settings: read once, changed through here, observed."""

    @property
    def current(self) -> AppSettings: ...

    def update(self, **changes: Any) -> AppSettings: ...

    def replace(self, settings: AppSettings) -> AppSettings: ...

    def reload(self) -> AppSettings: ...

    def subscribe(self, observer: SettingsObserver) -> Callable[[], None]: ...
