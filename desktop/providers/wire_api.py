"""The facts about a wire API, declared on its adapter class (every
:class:`~desktop.providers.http_base.HttpProvider` is a :class:`WireApi`).

Consumers read them through :mod:`desktop.providers.registry`: the factory (the class
of a kind), a stored config (``Options``), the request inspector (``key_variable``),
web search (``searches_web``, ``web_search_with_tools``), the knowledge bases
(``embedding_kind``; the adapter's ``embed``), chat titles (``quiet_request``) and the
provider form (the facts on ``Options``). A new wire API overrides what differs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from desktop.core.provider_options import CommonOptions, OpenAIChatOptions

if TYPE_CHECKING:
    from desktop.core.provider import ChatRequest
    from desktop.providers.presets import ProviderPreset

__all__ = ["WireApi"]


class WireApi:
    #: The wire API's name, stored in ``ProviderConfig.kind``.
    kind: ClassVar[str] = ""
    #: The adapter's options model (see desktop.core.provider_options): its fields, and
    #: the thinking controls the provider form shows.
    Options: ClassVar[type[CommonOptions]] = OpenAIChatOptions
    #: The environment variable "Copy as curl" names for the key ("": made from kind).
    key_variable: ClassVar[str] = ""
    #: The API searches the web itself when asked (see desktop.providers.web_search)...
    native_web_search: ClassVar[bool] = False
    #: ... also in a request that declares function tools (Gemini refuses that for many
    #: models: a turn with tools then uses the search service of Settings, if any).
    web_search_with_tools: ClassVar[bool] = True
    #: The kind of the embedding request its servers answer (None: they do not embed;
    #: the adapter of that kind has ``embed``, see desktop.providers.embedding).
    embedding_kind: ClassVar[str | None] = None
    #: Services of this API offered in "Add provider" besides the built-in presets
    #: (desktop.providers.presets: those of the built-in APIs are listed there).
    presets: ClassVar[tuple[ProviderPreset, ...]] = ()

    @classmethod
    def searches_web(cls, base_url: str) -> bool:
        """Whether a provider of this API at ``base_url`` searches the web itself."""
        return cls.native_web_search

    @classmethod
    def quiet_request(cls, options: CommonOptions, request: ChatRequest, *, preset: str,
                      reasoning: bool, always: bool) -> CommonOptions:
        """Options (and ``request`` fields, set in place) for a short answer without
        thinking, such as a chat title: ``reasoning``, the model can reason; ``always``,
        it cannot stop (then ask for the lowest effort, within ``request.max_tokens``)."""
        return options
