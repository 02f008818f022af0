"""A wire API that exists only in the tests, written as a newcomer would write one:
this module, and one registration (``register(EchoWireProvider)``, or one line in
``desktop.providers.registry.ADAPTERS`` for a built-in). It speaks Chat Completions on
the wire (so the loopback OpenAI server answers it), with its own options model and
facts that differ from OpenAI's."""

from __future__ import annotations

from typing import Literal

from desktop.core.provider_options import CommonOptions
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.presets import ProviderPreset

KIND = "echo-wire"


class EchoOptions(CommonOptions):
    shows_thinking = True
    shows_budget = True
    kind: Literal["echo-wire"] = "echo-wire"
    shout: bool = False  # a switch only this API has


class EchoWireProvider(OpenAIChatProvider):
    kind = KIND
    key_variable = "ECHO_WIRE_KEY"
    native_web_search = True
    embedding_kind = KIND  # its own embed(): OpenAI's /embeddings request
    default_name = "Echo"
    Options = EchoOptions
    presets = (ProviderPreset(id="echo", name="Echo service", kind=KIND, requires_key=False,
                              base_url="http://127.0.0.1:9/v1", default_model="echo-1"),)
