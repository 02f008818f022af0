"""What the window's pieces may ask of the app's services, as types.

A widget is handed the narrow service it uses (never the whole app context) and names
its type from here, so the interface layer imports no storage module to annotate a
parameter. The services themselves are built by the composition root
(:mod:`desktop.app`): :class:`~desktop.storage.settings_service.SettingsService` is a
:class:`SettingsSource`, :class:`~desktop.storage.secrets.SecretStore` a
:class:`KeyStore`, :class:`~desktop.storage.assistants.AssistantStore` an
:class:`AssistantSource`. Qt-free, like the rest of :mod:`desktop.core`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from desktop.core.records import Assistant
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


class KeyStore(Protocol):
    """Where keys and tokens are kept: the system keyring, or a file only the user can
    read (``is_secure`` False). Reads and writes raise AssistaError when it fails."""

    @property
    def is_secure(self) -> bool: ...

    @property
    def backend_name(self) -> str: ...

    @property
    def path(self) -> Path: ...

    def get(self, provider_id: str) -> str | None: ...

    def set(self, provider_id: str, key: str) -> None: ...

    def delete(self, provider_id: str) -> None: ...


class AssistantSource(Protocol):
    """The user's assistants, in their order (raises StorageError when it fails)."""

    def list_assistants(self) -> list[Assistant]: ...

    def get(self, assistant_id: str) -> Assistant | None: ...

    def save(self, assistant: Assistant) -> Assistant: ...

    def create(self, name: str, system_prompt: str = "", **fields: Any) -> Assistant: ...

    def duplicate(self, assistant_id: str) -> Assistant: ...

    def delete(self, assistant_id: str) -> bool: ...

    def reorder(self, assistant_ids: Sequence[str]) -> None: ...
