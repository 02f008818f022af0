"""The app's settings as one observable source: read once, changed through here,
observers told of every change.

Replaces copies of :class:`AppSettings` kept by each caller and re-reads of the
database: the chat service, the CLI and the window all read :attr:`current`, and the
window adapts :meth:`subscribe` to a Qt signal. Qt-free.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from desktop.core.settings import AppSettings
from desktop.storage.settings_store import SettingsStore

log = logging.getLogger(__name__)

#: ``observer(old, new)``: called after a change is saved.
SettingsObserver = Callable[[AppSettings, AppSettings], None]


class SettingsService:
    def __init__(self, store: SettingsStore, *,
                 before_save: Callable[[AppSettings], AppSettings] | None = None) -> None:
        """``before_save`` may rewrite what is stored (MCP tokens go to the keyring)."""
        self._store = store
        self._before_save = before_save
        self._current = store.load()
        self._observers: list[SettingsObserver] = []

    @property
    def current(self) -> AppSettings:
        return self._current

    def update(self, **changes: Any) -> AppSettings:
        """Change top-level fields (validated as a whole; raises ``ValidationError``)."""
        data = self._current.model_dump()
        data.update(changes)
        return self.replace(AppSettings.model_validate(data))

    def replace(self, settings: AppSettings) -> AppSettings:
        if self._before_save is not None:
            settings = self._before_save(settings)
        self._store.save(settings)
        self._set(settings)
        return settings

    def reload(self) -> AppSettings:
        """Read what another writer (a dialog, another process) saved."""
        self._set(self._store.load())
        return self._current

    def subscribe(self, observer: SettingsObserver) -> Callable[[], None]:
        """Call ``observer(old, new)`` after each change; returns the unsubscribe."""
        self._observers.append(observer)

        def unsubscribe() -> None:
            if observer in self._observers:
                self._observers.remove(observer)

        return unsubscribe

    def _set(self, settings: AppSettings) -> None:
        old, self._current = self._current, settings
        if old == settings:
            return
        for observer in list(self._observers):
            try:
                observer(old, settings)
            except Exception:  # one broken observer must not stop the others
                log.exception("a settings observer failed")
