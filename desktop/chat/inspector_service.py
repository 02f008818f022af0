"""The request inspector as the window uses it: the recorded requests of answers, the
providers to replay one to, the replay (issue 26: a narrow service, not the context)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from desktop.chat.replay import ReplayResult, replay
from desktop.storage.inspector_records import ExchangeRecord

if TYPE_CHECKING:
    from desktop.chat.app_context import BuildProvider
    from desktop.chat.provider_service import ProviderService
    from desktop.core.provider import ModelInfo
    from desktop.core.settings import ProviderConfig
    from desktop.storage.inspector_writer import InspectorWriter

__all__ = ["ExchangeRecord", "InspectorService", "ReplayResult"]


class InspectorService:
    def __init__(self, inspector: Callable[[], InspectorWriter], providers: ProviderService,
                 build_provider: BuildProvider) -> None:
        """``inspector``: the recorder, opened when first asked for."""
        self._inspector = inspector
        self._providers = providers
        self._build_provider = build_provider

    def records_for(self, message_ids: Sequence[str], *,
                    wait_s: float) -> list[ExchangeRecord]:
        """The requests recorded for these messages, once what is being written is
        stored (waiting up to ``wait_s``). Raises StorageError or sqlite3.Error."""
        with contextlib.suppress(TimeoutError):
            self._inspector().flush(wait_s)  # the answer that just streamed is stored
        return self._inspector().store.for_messages(message_ids)

    def clear_all(self) -> int:
        """Forget every recorded request; how many there were."""
        return self._inspector().clear_all()

    def providers(self) -> list[ProviderConfig]:
        return self._providers.all()

    def cached_models(self, config: ProviderConfig) -> list[ModelInfo]:
        return self._providers.cached_models(config)

    async def replay(self, record: ExchangeRecord, config: ProviderConfig,
                     model: str) -> ReplayResult:
        """Send the recorded request again (never raises for a provider failure)."""
        return await replay(self._build_provider, record, config, model)
