"""A new wire API is one module plus one registration: a test-only adapter
(tests/support/echo_wire.py) is registered, and every consumer of the facts about a
wire API picks it up with no other edit: the factory, a stored config's options, the
request inspector's curl command, native web search, the provider form and its "Add
provider" list (the API's own preset), the knowledge dialog's embedding providers, the
CLI's embedding kinds and embeddings themselves."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtWidgets import QPushButton

from desktop.chat.inspection import key_variable
from desktop.core.events import TextDelta
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.core.settings import ProviderConfig
from desktop.knowledge.embeddings import embed, embedding_kinds
from desktop.knowledge.store import EmbeddingConfig
from desktop.providers import registry
from desktop.providers.factory import create_provider
from desktop.providers.presets import all_presets, config_from_preset, find_preset
from desktop.providers.retry import RetryPolicy
from desktop.providers.web_search import has_native_web_search
from tests.knowledge.embedding_server import EmbeddingServer, bag_of_words
from tests.support.echo_wire import KIND, EchoOptions, EchoWireProvider
from tests.support.fixtures import openai_server
from tests.support.openai_server import FakeOpenAIServer

__all__ = ["openai_server"]


@pytest.fixture
def echo_registered() -> Iterator[None]:
    registry.wire_apis()  # the built-ins first, as in the app
    registry.register(EchoWireProvider)  # the one registration
    yield
    registry.unregister(KIND)


def config(base_url: str = "http://127.0.0.1:9/v1", **options: Any) -> ProviderConfig:
    return ProviderConfig(name="Echo", kind=KIND, base_url=base_url, model="echo-1",
                          options=options)


def test_it_is_unknown_before_its_registration() -> None:
    assert registry.wire_api(KIND) is None
    assert not has_native_web_search(KIND, "http://127.0.0.1:9")
    assert "echo" not in all_presets() and find_preset("echo") is None


@pytest.mark.usefixtures("echo_registered")
def test_its_preset_is_offered_with_the_others(qtbot: Any) -> None:
    from desktop.ui.providers.provider_list import ProviderList
    from desktop.ui.providers.welcome_page import WelcomePage

    made = config_from_preset("echo")
    assert (made.kind, made.model, made.preset) == (KIND, "echo-1", "echo")
    assert list(all_presets())[-1] == "echo"  # after the built-in ones
    providers = ProviderList()
    welcome = WelcomePage()
    qtbot.addWidget(providers)
    qtbot.addWidget(welcome)
    menu = providers.add_button.menu()
    assert menu is not None and "Echo service" in [a.text() for a in menu.actions()]
    with qtbot.waitSignal(welcome.presetChosen) as chosen:
        button = next(b for b in welcome.findChildren(QPushButton)
                      if b.text() == "Echo service")
        button.click()
    assert chosen.args == ["echo"]


@pytest.mark.usefixtures("echo_registered")
async def test_the_factory_makes_it_and_it_answers(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_text("echoed")
    provider = create_provider(config(openai_server.base_url, shout=True), "k",
                               retry=RetryPolicy.disabled())
    try:
        assert isinstance(provider, EchoWireProvider)
        assert isinstance(provider.options, EchoOptions) and provider.options.shout
        request = ChatRequest(model="echo-1", messages=[Message.user("Hi")])
        text = "".join([e.text async for e in provider.stream(request)
                        if isinstance(e, TextDelta)])
    finally:
        await provider.aclose()
    assert text == "echoed"


@pytest.mark.usefixtures("echo_registered")
def test_a_stored_config_keeps_its_own_options() -> None:
    stored = config(shout=True, reasoning=True).model_dump_json()
    loaded = ProviderConfig.model_validate_json(stored)
    assert isinstance(loaded.options, EchoOptions)
    assert loaded.options.shout and loaded.options.reasoning
    assert '"shout":true' in stored


@pytest.mark.usefixtures("echo_registered")
def test_inspection_web_search_and_embedding_kinds_read_its_facts() -> None:
    assert key_variable(KIND) == "ECHO_WIRE_KEY"
    assert has_native_web_search(KIND, "http://127.0.0.1:9/v1")
    assert KIND in embedding_kinds()


@pytest.mark.usefixtures("echo_registered")
def test_its_embeddings_are_made_by_its_adapter() -> None:
    with EmbeddingServer() as server:
        vectors = embed(EmbeddingConfig(kind=KIND, base_url=server.base_url, model="e"),
                        ["hello there"], "k")
    assert vectors == [bag_of_words("hello there")]
    assert server.paths == ["/v1/embeddings"]


@pytest.mark.usefixtures("echo_registered")
def test_the_provider_form_shows_its_thinking_controls(qtbot: Any) -> None:
    from desktop.ui.providers.provider_options import ProviderOptionsBox

    box = ProviderOptionsBox()
    qtbot.addWidget(box)
    echo = config(shout=True)
    box.load(echo)
    assert box.thinking_check.isVisibleTo(box) and box.budget_spin.isVisibleTo(box)
    assert not box.effort_combo.isVisibleTo(box) and not box.mode_combo.isVisibleTo(box)
    box.thinking_check.setChecked(True)
    box.budget_spin.setValue(4096)
    assert box.options(echo.options) == EchoOptions(shout=True, reasoning=True,
                                                    reasoning_budget=4096)


@pytest.mark.usefixtures("echo_registered")
def test_the_knowledge_dialog_offers_it_for_embeddings(qtbot: Any) -> None:
    from desktop.knowledge.store import KnowledgeBase
    from desktop.ui.knowledge.knowledge_detail import KnowledgeDetail

    detail = KnowledgeDetail()
    qtbot.addWidget(detail)
    base = KnowledgeBase(id=1, name="K", paths=(), embedding=None, indexed_at=None)
    anthropic = ProviderConfig(name="A", kind="anthropic", base_url="https://a.example")
    echo = config()
    detail.show_base(base, [anthropic, echo], in_chat=False)
    assert [p.id for p in detail.providers] == [echo.id]  # Anthropic does not embed
    with qtbot.waitSignal(detail.embeddingChosen) as chosen:
        detail.provider_combo.setCurrentIndex(detail.provider_combo.findData(echo.id))
        detail.model_edit.setText("e")
        detail.model_edit.editingFinished.emit()
    assert chosen.args[0] == EmbeddingConfig(kind=KIND, base_url=echo.base_url, model="e",
                                             provider_id=echo.id)


def test_it_is_forgotten_once_unregistered() -> None:
    registry.register(EchoWireProvider)
    registry.unregister(KIND)
    assert registry.wire_api(KIND) is None and KIND not in embedding_kinds()
