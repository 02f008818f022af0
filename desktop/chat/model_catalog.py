"""The models a chat can pick: every provider's cached model list with what each model
can do and costs, the user's favourites and the recently used ones.

What the model picker shows, without Qt: :meth:`ModelCatalog.sections` groups the
entries (Favourites, Recent, then one group per provider) and filters them by what
the user types — every word must appear in the model id, its provider's name or
its badges ("vision 128k" finds image models with a 128K context).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, NamedTuple

import msgspec

from desktop.core.images import makes_images
from desktop.core.pricing import Price, price_for

if TYPE_CHECKING:
    from desktop.chat.provider_service import ProviderService
    from desktop.core.services import SettingsSource
    from desktop.core.settings import ProviderConfig
    from desktop.storage.settings_store import SettingsStore

CHOICES_KEY = "model_choices"
RECENT_LIMIT = 6
#: The labels :meth:`ModelEntry.badges` gives for what a model can do (the interface
#: words them in its language; sizes and prices are shown as they are).
CAPABILITY_BADGES = ("makes images", "tools", "images", "reasoning")
SectionKind = Literal["favourites", "recent", "provider"]


class ModelEntry(msgspec.Struct, frozen=True):
    """One model of a provider as the model picker lists it."""

    provider_id: str
    provider_name: str
    model: str
    tools: bool
    vision: bool
    reasoning: bool
    context_window: int | None
    price: Price | None
    favourite: bool = False

    @property
    def key(self) -> str:
        return f"{self.provider_id}\t{self.model}"

    def badges(self) -> list[str]:
        """Short labels, in the order the picker shows them."""
        badges = [name for name, on in (("makes images", makes_images(self.model)),
                                        ("tools", self.tools), ("images", self.vision),
                                        ("reasoning", self.reasoning)) if on]
        if self.context_window:
            badges.append(format_tokens(self.context_window))
        if self.price is not None:
            badges.append(format_price(self.price))
        return badges

    def matches(self, query: str, words: Callable[[str], str] | None = None) -> bool:
        """Every word of ``query`` is in the model id, the provider's name or a badge
        (also as ``words`` puts it: the badges in the interface's language)."""
        badges = self.badges()
        shown = [words(b) for b in badges] if words is not None else []
        haystack = " ".join([self.model, self.provider_name, *badges, *shown]).lower()
        return all(word in haystack for word in query.lower().split())


class ModelSection(NamedTuple):
    """A group of the picker: ``kind`` "favourites" or "recent" (the interface names
    them), or "provider" with the provider's name as ``title``."""

    kind: SectionKind
    title: str
    entries: list[ModelEntry]


def format_tokens(count: int) -> str:
    """128000 -> "128K", 1048576 -> "1M" (a context window's size)."""
    if count >= 1_000_000:
        value = count / 1_048_576 if count % 1_000_000 else count / 1_000_000
        return f"{value:.0f}M" if value >= 10 or value.is_integer() else f"{value:.1f}M"
    return f"{round(count / 1000)}K" if count >= 1000 else str(count)


def format_price(price: Price) -> str:
    """US dollars per million input / output tokens."""
    def dollars(value: float) -> str:
        text = f"${value:.2f}" if value < 10 else f"${value:.0f}"
        return text.removesuffix(".00")
    return f"{dollars(price.input)}/{dollars(price.output)}"


class ModelCatalog:
    def __init__(self, values: SettingsStore, settings: SettingsSource,
                 providers: ProviderService) -> None:
        """``values``: where the favourites and recent models are kept."""
        self._values = values
        self._settings = settings
        self._providers = providers

    # -- favourites and recent (one small JSON value) -----------------------------------

    def _choices(self) -> tuple[list[str], list[str]]:
        raw = self._values.get_value(CHOICES_KEY, {})
        raw = raw if isinstance(raw, dict) else {}
        lists = [raw.get(name) for name in ("favourites", "recent")]
        favourites, recent = ([str(k) for k in v] if isinstance(v, list) else [] for v in lists)
        return favourites, recent

    def _save(self, favourites: list[str], recent: list[str]) -> None:
        self._values.set_value(CHOICES_KEY, {"favourites": favourites, "recent": recent})

    def is_favourite(self, provider_id: str, model: str) -> bool:
        return f"{provider_id}\t{model}" in self._choices()[0]

    def set_favourite(self, provider_id: str, model: str, favourite: bool) -> None:
        favourites, recent = self._choices()
        key = f"{provider_id}\t{model}"
        favourites = [k for k in favourites if k != key] + ([key] if favourite else [])
        self._save(favourites, recent)

    def used(self, provider_id: str, model: str) -> None:
        """``model`` was picked: it goes first in Recent."""
        favourites, recent = self._choices()
        key = f"{provider_id}\t{model}"
        self._save(favourites, [key, *[k for k in recent if k != key]][:RECENT_LIMIT])

    # -- entries -----------------------------------------------------------------------

    def entry(self, config: ProviderConfig, model: str, favourites: set[str]) -> ModelEntry:
        caps = self._providers.capabilities(config, model)
        prices = {m: Price(p.input, p.output, p.cached_input)
                  for m, p in self._settings.current.prices.items()}
        return ModelEntry(
            provider_id=config.id, provider_name=config.name, model=model, tools=caps.tools,
            vision=caps.vision, reasoning=caps.reasoning, context_window=caps.context_window,
            price=price_for(model, prices), favourite=f"{config.id}\t{model}" in favourites)

    def provider_models(self, config: ProviderConfig, favourites: set[str]) -> list[ModelEntry]:
        """The provider's cached list (its default model first when not listed)."""
        ids = [m.id for m in self._providers.cached_models(config)]
        if config.model and config.model not in ids:
            ids.insert(0, config.model)
        return [self.entry(config, model, favourites) for model in ids]

    def sections(self, query: str = "", words: Callable[[str], str] | None = None
                 ) -> list[ModelSection]:
        """The groups to show for ``query`` (``words``: see :meth:`ModelEntry.matches`);
        empty groups are left out."""
        favourite_keys, recent_keys = self._choices()
        favourites = set(favourite_keys)
        by_key: dict[str, ModelEntry] = {}
        groups: list[ModelSection] = []
        for config in self._providers.all():
            entries = self.provider_models(config, favourites)
            by_key.update((e.key, e) for e in entries)
            groups.append(ModelSection("provider", config.name, entries))
        known = {c.id: c for c in self._providers.all()}

        def lookup(key: str) -> ModelEntry | None:
            provider_id, _tab, model = key.partition("\t")
            if key in by_key:
                return by_key[key]
            config = known.get(provider_id)  # a model typed in, not in the list
            return self.entry(config, model, favourites) if config is not None else None

        pinned = [ModelSection("favourites", "Favourites",
                               [e for k in favourite_keys if (e := lookup(k))]),
                  ModelSection("recent", "Recent", [e for k in recent_keys if (e := lookup(k))])]
        return [ModelSection(kind, title, hits) for kind, title, entries in [*pinned, *groups]
                if (hits := [e for e in entries if e.matches(query, words)])]
