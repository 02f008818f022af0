"""Voice for the window: what reads an answer aloud and what turns a recording into
text, from the settings (a provider's speech or transcription model, else the system's
voice). Qt-free and blocking: the window calls these on a worker thread."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop.core.errors import AssistaError
from desktop.core.speech_text import speech_text
from desktop.core.system_speech import synthesize as system_synthesize
from desktop.providers.audio_api import AudioEndpoint

if TYPE_CHECKING:
    from desktop.chat.provider_service import ProviderService
    from desktop.core.proxy import Proxy
    from desktop.core.services import SettingsSource
    from desktop.core.settings import AppSettings, ProviderConfig

__all__ = ["VoiceService", "system_voice"]


def system_voice(markdown: str) -> bytes:
    """The answer ``markdown`` said by the system's voice (no provider's), as audio."""
    return system_synthesize(speech_text(markdown))


class VoiceService:
    def __init__(self, settings: SettingsSource, providers: ProviderService,
                 proxy: Callable[[], Proxy]) -> None:
        """``proxy``: the proxy as Preferences say now."""
        self._settings_source = settings
        self._providers = providers
        self._proxy = proxy

    def _settings(self) -> AppSettings:
        return self._settings_source.current

    def _endpoint(self, provider_id: str) -> AudioEndpoint | None:
        config: ProviderConfig | None = None
        for candidate in self._providers.all():
            if candidate.id == provider_id:
                config = candidate
        if config is None:
            config = self._providers.active()
        if config is None:
            return None
        return AudioEndpoint(config.base_url, self._providers.api_key(config), name=config.name,
                             headers=dict(config.headers), timeout=config.timeout_s,
                             proxy=self._proxy())

    def uses_provider_speech(self) -> bool:
        return bool(self._settings().speech_model)

    def speak(self, markdown: str) -> bytes:
        """The answer ``markdown`` said (its words, not its marks or code), as audio."""
        text = speech_text(markdown)
        if not text:
            raise AssistaError("there is nothing to read aloud", code="nothing_to_read")
        settings = self._settings()
        # WAV: decoded the same everywhere (48 kB a second of speech at 24 kHz)
        if settings.speech_model:
            endpoint = self._endpoint(settings.speech_provider_id)
            if endpoint is not None:
                return asyncio.run(endpoint.speak(settings.speech_model, text,
                                                  voice=settings.speech_voice or "alloy",
                                                  audio_format="wav"))
        return system_synthesize(text)

    def can_transcribe(self) -> bool:
        return bool(self._settings().transcription_model)

    def transcribe(self, wav: bytes) -> str:
        settings = self._settings()
        endpoint = self._endpoint(settings.transcription_provider_id)
        if not settings.transcription_model or endpoint is None:
            raise AssistaError("no transcription model is set", code="no_transcription_model")
        return asyncio.run(endpoint.transcribe(settings.transcription_model, wav,
                                               "dictation.wav"))
