"""A chat's own temperature, max tokens and reasoning effort reach its requests, over
its assistant's and its provider's defaults; New chat keeps the assistant."""

from __future__ import annotations

from desktop.app import AppContext
from desktop.chat.chat_options import ChatOptions, layered
from desktop.chat.profile import NewChat
from desktop.chat.service import ChatService
from desktop.core.provider_options import RequestOptions
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream


def _answer(server: FakeOpenAIServer) -> None:
    server.enqueue(ScriptedResponse(chunks=text_stream("ok")))


def _with_provider_defaults(ctx: AppContext, **defaults: object) -> None:
    config = ctx.providers.all()[0]
    options = config.options.model_copy(update=defaults)
    ctx.settings_store.save_provider(config.model_copy(update={"options": options}))


async def test_the_chats_own_options_are_sent_over_assistant_and_provider(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    _with_provider_defaults(ctx, temperature=0.9, max_tokens=500)
    assistant = ctx.assistants.create("Careful", "Be careful.", temperature=0.2)
    chat = NewChat(assistant_id=assistant.id)
    _answer(server)
    first = service.start(chat, "one")
    await service.wait_idle()
    body = server.chat_requests[-1].json
    assert body["temperature"] == 0.2  # the assistant's, over the provider's 0.9
    assert body["max_tokens"] == 500  # the provider's

    # set on the saved chat: its own win; another chat is not touched
    service.chats.set_options(first.session_id, ChatOptions(temperature=1.3, max_tokens=64))
    _answer(server)
    service.start(first.session_id, "two")
    await service.wait_idle()
    body = server.chat_requests[-1].json
    assert (body["temperature"], body["max_tokens"]) == (1.3, 64)
    _answer(server)
    service.start(NewChat(assistant_id=assistant.id), "elsewhere")
    await service.wait_idle()
    assert server.chat_requests[-1].json["temperature"] == 0.2


async def test_a_new_chats_options_are_saved_with_it(
        service: ChatService, server: FakeOpenAIServer) -> None:
    chat = NewChat(options=ChatOptions(max_tokens=77, reasoning_effort="high"))
    _answer(server)
    turn = service.start(chat, "hi")
    await service.wait_idle()
    assert server.chat_requests[-1].json["max_tokens"] == 77
    assert service.chats.options(turn.session_id) == chat.options
    plan = service.plan(turn.session_id)
    assert plan.request.reasoning and plan.request.reasoning_effort == "high"
    service.chats.set_options(turn.session_id, ChatOptions())  # back to the defaults
    assert service.plan(turn.session_id).request.max_tokens is None


def test_reasoning_effort_off_turns_the_providers_thinking_off() -> None:
    provider = RequestOptions(reasoning=True, reasoning_budget=4096, temperature=0.5)
    off = layered(provider, None, ChatOptions(reasoning_effort="off"))
    assert not off.reasoning and off.reasoning_budget is None and off.temperature == 0.5
    low = layered(provider, 0.1, ChatOptions(reasoning_effort="low"))
    assert low.reasoning and low.reasoning_effort == "low" and low.reasoning_budget is None
    assert low.temperature == 0.1
    assert layered(provider, None, ChatOptions()) == provider


def test_stored_options_are_read_leniently() -> None:
    assert ChatOptions.from_json({"temperature": 9, "max_tokens": "x",
                                  "reasoning_effort": "extreme"}) == ChatOptions()
    assert ChatOptions.from_json({"temperature": 1, "max_tokens": 5}) == ChatOptions(1.0, 5)
    assert ChatOptions.from_json(None) == ChatOptions()


def test_new_chat_keeps_the_assistant_of_the_chat_the_user_was_in(
        service: ChatService, ctx: AppContext) -> None:
    default = ctx.assistants.create("Default one", "d")
    ctx.settings.update(default_assistant_id=default.id)
    translator = ctx.assistants.create("Translator", "Translate.")
    current = service.chats.new_chat()
    assert service.chats.assistant(current) == default
    service.chats.set_assistant(current, translator.id)
    following = service.chats.new_chat(like=current)
    assert service.chats.assistant(following) == translator
    saved = ctx.sessions.create_session(title="t", assistant_id=translator.id)
    assert service.chats.assistant(service.chats.new_chat(like=saved.id)) == translator
    plain = ctx.sessions.create_session(title="p")
    assert service.chats.assistant(service.chats.new_chat(like=plain.id)) == default
