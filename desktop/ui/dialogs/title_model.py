"""Preferences → Chats → "Titles written by": the chat's own model, or one model (a
provider and its model) for every title — a small, quick one saves the time and cost
of asking a large reasoning model for six words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QWidget

if TYPE_CHECKING:
    from desktop.chat.provider_service import ProviderService
    from desktop.core.settings import AppSettings


class TitleModelCombo(QComboBox):
    """Items: "The chat's model", then each provider's models (its default first and
    those it listed last); :attr:`choices` holds each item's ``(provider id, model)``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choices: list[tuple[str, str]] = []
        self.setAccessibleName(self.tr("Model that writes titles"))
        self.setToolTip(self.tr("The chat's own model, or one model for every title (a "
                                "small, quick one is enough)"))

    def load(self, providers: ProviderService, settings: AppSettings) -> None:
        self.clear()
        self.choices = [("", "")]
        self.addItem(self.tr("The chat's model"))
        chosen = (settings.title_provider_id, settings.title_model)
        for config in providers.all():
            models = [config.model] if config.model else []
            models += [m.id for m in providers.cached_models(config) if m.id not in models]
            if chosen[0] == config.id and chosen[1] and chosen[1] not in models:
                models.insert(0, chosen[1])  # named once, not listed by the server now
            for model in models:
                self.addItem(self.tr("{model} on {provider}").format(
                    model=model, provider=config.name))
                self.choices.append((config.id, model))
        self.select(*chosen)

    def select(self, provider_id: str, model: str) -> None:
        """Show that choice (no model: the provider's first, its default)."""
        index = next((i for i, (pid, name) in enumerate(self.choices)
                      if pid == provider_id and (name == model or not model)), 0)
        self.setCurrentIndex(index)

    def chosen(self) -> tuple[str, str]:
        index = self.currentIndex()
        return self.choices[index] if 0 <= index < len(self.choices) else ("", "")

    def changes(self) -> dict[str, object]:
        provider_id, model = self.chosen()
        return {"title_provider_id": provider_id, "title_model": model}
