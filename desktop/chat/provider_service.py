"""The model providers as one service: listed, found, saved, removed and observed here.

Every reader (the window's pickers, the Providers dialog, the chat service, the CLI,
knowledge bases) asks :meth:`ProviderService.all` instead of running its own query, and
every writer goes through :meth:`save`, :meth:`adopt` and :meth:`remove`, which keep
the saved row, its key in the secret store and the active provider together and then
tell the observers (the window adapts :meth:`subscribe` to a Qt signal). Qt-free, like
:class:`~desktop.storage.settings_service.SettingsService` beside it.

What is listed: the user's own providers, then ones whose key is in the environment
(read-only), then ones detected on this computer (LM Studio, Ollama).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import msgspec

from desktop.core.messages import new_id
from desktop.core.provider import ModelCapabilities, ModelInfo
from desktop.core.settings import AppSettings, ProviderConfig
from desktop.providers.capabilities import Capabilities, resolve_capabilities
from desktop.providers.factory import create_provider, providers_from_environment
from desktop.providers.presets import find_preset

if TYPE_CHECKING:
    from desktop.core.provider import Provider
    from desktop.core.proxy import Proxy
    from desktop.storage.logs import SecretRedactor
    from desktop.storage.secrets import SecretStore
    from desktop.storage.settings_service import SettingsService
    from desktop.storage.settings_store import SettingsStore

log = logging.getLogger(__name__)

#: One plain thread (not the event loop's default executor: under qasync that is a pool
#: of QThreads tied to one loop) for building providers off the event loop.
_PROVIDER_BUILDER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="assista-provider")

#: ``observer()``: called after the list of providers changed (saved, removed, detected).
ProvidersObserver = Callable[[], None]


class ProviderService:
    def __init__(self, store: SettingsStore, settings: SettingsService, *,
                 secrets: Callable[[], SecretStore], environ: Mapping[str, str],
                 redactor: SecretRedactor, proxy: Callable[[], Proxy],
                 build: Callable[[ProviderConfig], Provider]) -> None:
        """``secrets``: the secret store, opened when first asked for (the keyring is
        slow to open); ``proxy``: the proxy as Preferences say now; ``build``: a
        provider for requests as the app makes them (its timeout, recorded)."""
        self._store = store
        self._settings = settings
        self._secrets = secrets
        self._environ = environ
        self._redactor = redactor
        self._proxy = proxy
        self._build = build
        self._detected: list[ProviderConfig] = []
        self._observers: list[ProvidersObserver] = []

    # -- reading --------------------------------------------------------------------------

    def all(self) -> list[ProviderConfig]:
        """User-configured providers, then ones from the environment, then detected ones
        (one per address and kind: the user's own wins)."""
        configured = self._store.list_providers()
        seen = {(p.base_url.rstrip("/"), p.kind) for p in configured}
        extra: list[ProviderConfig] = []
        for config in [*providers_from_environment(self._environ), *self._detected]:
            key = (config.base_url.rstrip("/"), config.kind)
            if key not in seen:
                seen.add(key)
                extra.append(config)
        return [*configured, *extra]

    def get(self, provider_id: str | None) -> ProviderConfig | None:
        if provider_id is None:
            return None
        return next((config for config in self.all() if config.id == provider_id), None)

    def find(self, name: str) -> ProviderConfig | None:
        """By id or name, ignoring case (``assista ask --provider``)."""
        wanted = name.strip().lower()
        for config in self.all():
            if wanted in (config.id.lower(), config.name.lower()):
                return config
        return None

    def active(self, settings: AppSettings | None = None) -> ProviderConfig | None:
        """The provider chosen in settings, else the first one (None: there is none)."""
        settings = settings or self._settings.current
        providers = self.all()
        for config in providers:
            if config.id == settings.active_provider_id:
                return config
        return providers[0] if providers else None

    def api_key(self, config: ProviderConfig) -> str | None:
        """The key requests of ``config`` use: the secret store's for the user's own,
        the environment's otherwise. Added to the log's redactor."""
        key: str | None = None
        if config.source == "environment" and config.api_key_env:
            key = self._environ.get(config.api_key_env) or None
        elif config.source == "user":
            key = self._secrets().get(config.id)
        if key is None and config.source != "user":
            preset = find_preset(config.preset)
            found = preset.key_from_env(self._environ) if preset is not None else None
            key = found[1] if found else None
        self._redactor.add(key)
        return key

    def saved_key(self, provider_id: str) -> str | None:
        """The key saved for one of the user's providers (raises AssistaError when the
        secret store cannot be read)."""
        return self._secrets().get(provider_id)

    def key_store(self) -> SecretStore:
        """Where keys are kept (the dialog says which keyring, or which file)."""
        return self._secrets()

    def checker(self, config: ProviderConfig, key: str | None, *,
                timeout_s: float) -> Provider:
        """A provider for one check (fetch the models, test the connection) of a config
        that may not be saved yet: no retries, at most ``timeout_s`` per request."""
        from desktop.providers.retry import RetryPolicy  # (not needed to start)

        config = config.model_copy(update={"timeout_s": min(config.timeout_s, timeout_s)})
        return create_provider(config, key, retry=RetryPolicy.disabled(), proxy=self._proxy())

    # -- model lists and capabilities -------------------------------------------------

    def cached_models(self, config: ProviderConfig) -> list[ModelInfo]:
        """The provider's model list as last fetched (empty if never fetched)."""
        raw = self._store.get_value(f"models:{config.id}", None)
        if not isinstance(raw, list):
            return []
        models: list[ModelInfo] = []
        for item in raw:
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                caps = item.get("capabilities")
                models.append(ModelInfo(
                    id=item["id"], name=item.get("name"),
                    context_window=item.get("context_window"),
                    capabilities=ModelCapabilities(**caps) if isinstance(caps, dict) else None,
                ))
        return models

    async def refresh_models(self, config: ProviderConfig) -> list[ModelInfo]:
        """Fetch the model list from the provider and cache it; raises ProviderError."""
        # Built on a worker thread: the first provider built imports and opens the
        # keyring and makes a TLS context (0.1-0.3 s), which at start-up froze the window
        # just after it was filled in.
        provider = await asyncio.wrap_future(_PROVIDER_BUILDER.submit(self._build, config))
        try:
            models = await provider.list_models()
        finally:
            await provider.aclose()
        self._store.set_value(f"models:{config.id}", [
            {"id": m.id, "name": m.name, "context_window": m.context_window,
             "capabilities": msgspec.structs.asdict(m.capabilities) if m.capabilities else None}
            for m in models
        ])
        return models

    def capabilities(self, config: ProviderConfig, model: str) -> Capabilities:
        """What ``model`` of ``config`` can do: as the provider reported it, else as
        known by its name, with the user's overrides."""
        reported = next((m.capabilities for m in self.cached_models(config) if m.id == model),
                        None)
        return resolve_capabilities(model, reported, config.options.capabilities)

    # -- changing -------------------------------------------------------------------------

    def save(self, config: ProviderConfig, api_key: str | None) -> None:
        """Save one of the user's providers with its key (none: the saved key is
        deleted); it becomes the active one when no known provider is. Raises
        AssistaError (a header carrying a credential, the keyring refusing)."""
        self._store.save_provider(config)
        secrets = self._secrets()
        if api_key:
            secrets.set(config.id, api_key)
        else:
            secrets.delete(config.id)
        self._activate_if_none(config.id)
        self._changed()

    def adopt(self, detected: ProviderConfig) -> ProviderConfig:
        """Make a detected provider one of the user's own (editable); returns it."""
        config = detected.model_copy(update={"id": new_id("prov_"), "source": "user"})
        self._store.save_provider(config)
        self._activate_if_none(config.id)
        self._changed()
        return config

    def remove(self, provider_id: str) -> bool:
        """Remove one of the user's providers and its saved key; settings no longer
        name it as active. False when there was no such provider."""
        removed = self._store.delete_provider(provider_id)
        self._secrets().delete(provider_id)
        self._settings.reload()  # (the store cleared the active provider with the row)
        if removed:
            self._changed()
        return removed

    async def detect_local(self) -> list[ProviderConfig]:
        """Look for LM Studio and Ollama running on this computer; what answers is
        listed from now on (and returned)."""
        from desktop.providers.factory import detect_lmstudio, detect_ollama
        from desktop.providers.http_clients import make_async_client  # (a first run only)

        async with make_async_client(timeout=5.0, connect_timeout=5.0,
                                     proxy=self._proxy()) as client:
            found = await asyncio.gather(detect_lmstudio(client),
                                         detect_ollama(client, self._environ))
        detected = [config for config in found if config is not None]
        self.add_detected(detected)
        return detected

    def add_detected(self, configs: Iterable[ProviderConfig]) -> None:
        """Providers found running on this computer (listed after the others)."""
        found = list(configs)
        if found:
            self._detected.extend(found)
            self._changed()

    def subscribe(self, observer: ProvidersObserver) -> Callable[[], None]:
        """Call ``observer()`` after each change; returns the unsubscribe."""
        self._observers.append(observer)

        def unsubscribe() -> None:
            if observer in self._observers:
                self._observers.remove(observer)

        return unsubscribe

    def _activate_if_none(self, provider_id: str) -> None:
        known = {config.id for config in self.all()}
        if self._settings.current.active_provider_id not in known:
            self._settings.update(active_provider_id=provider_id)

    def _changed(self) -> None:
        for observer in list(self._observers):
            try:
                observer()
            except Exception:  # one broken observer must not stop the others
                log.exception("a providers observer failed")
