"""What Preferences reads and changes, and nothing else (issue 26): the window's
:class:`desktop.ui.window.app_services.AppServices` is one; a test can hand in its own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from desktop.chat.inspector_service import InspectorService
    from desktop.chat.provider_service import ProviderService
    from desktop.chat.usage import ModelUsage
    from desktop.core.services import AssistantSource, KeyStore, SettingsSource
    from desktop.skills.service import SkillService
    from desktop.ui.window.app_services import DataFolder


class PreferencesServices(Protocol):
    @property
    def settings(self) -> SettingsSource:
        """Read when the dialog opens, changed on Save (the quick-ask shortcut at once)."""

    @property
    def providers(self) -> ProviderService:
        """The models to choose from (titles, voice)."""

    @property
    def assistants(self) -> AssistantSource:
        """The default assistant to choose from."""

    @property
    def paths(self) -> DataFolder:
        """The data folder shown on the Data page."""

    @property
    def secrets(self) -> KeyStore:
        """Where the web search key is kept."""

    @property
    def inspection(self) -> InspectorService:
        """Clearing the request inspector's records."""

    def skills(self) -> SkillService: ...

    def usage(self, since: float = 0.0) -> list[ModelUsage]: ...
