"""The title request of each wire API: capped, with reasoning off (or at its lowest
where a model cannot stop), whatever the provider's own switches say."""

from __future__ import annotations

from desktop.chat.title_request import (
    REASONING_MAX_TOKENS,
    TITLE_MAX_TOKENS,
    title_call,
    title_complete,
)
from desktop.core.settings import ProviderConfig
from desktop.providers.anthropic_format import build_anthropic_body
from desktop.providers.gemini_format import build_gemini_body
from desktop.providers.ollama_format import build_ollama_body
from desktop.providers.openai_responses_format import build_openai_responses_body


def _config(kind: str, options: dict[str, object]) -> ProviderConfig:
    return ProviderConfig(name=kind, kind=kind, base_url="http://127.0.0.1:9/v1",
                          options={"kind": kind, **options})


def test_anthropic_thinks_not_even_when_the_provider_always_does() -> None:
    call = title_call(_config("anthropic", {"thinking": True, "thinking_budget": 4096}),
                      "claude-sonnet-4", True, "sys", "chat")
    body = build_anthropic_body(call.request, options=call.config.options)  # type: ignore[arg-type]
    assert "thinking" not in body and body["max_tokens"] == TITLE_MAX_TOKENS


def test_gemini_turns_thinking_off_or_to_its_least() -> None:
    flash = title_call(_config("gemini", {}), "gemini-2.5-flash", True, "sys", "chat")
    body = build_gemini_body(flash.request, flash.config.options)  # type: ignore[arg-type]
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": False,
                                                          "thinkingBudget": 0}
    assert body["generationConfig"]["maxOutputTokens"] == TITLE_MAX_TOKENS
    pro = title_call(_config("gemini", {"thinking_level": "high"}), "gemini-2.5-pro", True,
                     "sys", "chat")
    body = build_gemini_body(pro.request, pro.config.options)  # type: ignore[arg-type]
    assert body["generationConfig"]["thinkingConfig"]["thinkingBudget"] == 128
    assert body["generationConfig"]["maxOutputTokens"] == REASONING_MAX_TOKENS
    three = title_call(_config("gemini", {"thinking_level": "high"}), "gemini-3-pro-preview",
                       True, "sys", "chat")
    body = build_gemini_body(three.request, three.config.options)  # type: ignore[arg-type]
    assert body["generationConfig"]["thinkingConfig"]["thinkingLevel"] == "low"
    plain = title_call(_config("gemini", {}), "gemini-2.0-flash", False, "sys", "chat")
    body = build_gemini_body(plain.request, plain.config.options)  # type: ignore[arg-type]
    assert "thinkingConfig" not in body["generationConfig"]


def test_ollama_and_responses() -> None:
    qwen = title_call(_config("ollama", {"think": True}), "qwen3:8b", True, "sys", "chat")
    body = build_ollama_body(qwen.request, qwen.config.options)  # type: ignore[arg-type]
    assert body["think"] is False and body["options"]["num_predict"] == TITLE_MAX_TOKENS
    o3 = title_call(_config("openai-responses", {}), "o3", True, "sys", "chat")
    body = build_openai_responses_body(o3.request)
    assert body["reasoning"]["effort"] == "low"
    assert body["max_output_tokens"] == REASONING_MAX_TOKENS
    gpt = title_call(_config("openai-responses", {}), "gpt-4.1", False, "sys", "chat")
    body = build_openai_responses_body(gpt.request)
    assert "reasoning" not in body and body["max_output_tokens"] == TITLE_MAX_TOKENS


def test_title_complete() -> None:
    assert not title_complete("", 60)
    assert not title_complete("\n\n  Trip to", 60)
    assert title_complete("\nTrip to Rome\n", 60)
    assert title_complete("x" * 61, 60)
