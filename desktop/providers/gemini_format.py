"""Gemini ``generateContent`` request bodies (https://ai.google.dev/api/generate-content).

No I/O here: :func:`build_gemini_body` turns a :class:`ChatRequest` into the JSON of
``POST models/{model}:streamGenerateContent``. Parsing the stream lives in
``gemini_stream``, the HTTP side in ``gemini``.

Thought signatures (https://ai.google.dev/gemini-api/docs/thought-signatures) ride
on the part they came with and go back verbatim on that same part:

* a signed ``functionCall`` part: ``ToolCallPart.provider_data["thoughtSignature"]``;
* a signed thought part: a :class:`ReasoningPart` of exactly that part's text with
  ``provider_data["thoughtSignature"]`` (unsigned thought summaries are shown but
  never sent back: Gemini does not need them);
* a signed text part (often an empty one ending the stream): the text is shown as
  usual, followed by an empty :class:`ReasoningPart` whose provider_data holds the
  signature and ``gemini_signed_text_chars``, the length of the signed text. The
  request builder splits that many characters off the preceding text part and
  sends them as their own part with the signature, so signed and unsigned parts
  are never merged, as Google's docs require.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from desktop.core.attachments import native_document
from desktop.core.images import makes_images
from desktop.core.messages import (
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop.core.provider import ChatRequest, ToolSpec
from desktop.core.provider_options import GeminiOptions

__all__ = [
    "EFFORT_BUDGETS",
    "SERVER_ID",
    "SIGNATURE",
    "SIGNED_TEXT",
    "build_gemini_body",
    "contents_from_messages",
    "prepare_schema",
]

SIGNATURE = "thoughtSignature"  # the wire name, also the provider_data key
SIGNED_TEXT = "gemini_signed_text_chars"  # on the empty ReasoningPart after signed text
SERVER_ID = "gemini_server_id"  # on a ToolCallPart whose id came from Gemini

#: ``reasoning_effort`` -> ``thinkingBudget``, as Google maps it for its OpenAI-compatible
#: endpoint (https://ai.google.dev/gemini-api/docs/openai#thinking).
EFFORT_BUDGETS = {"minimal": 1024, "low": 1024, "medium": 8192, "high": 24576}

_SCHEMA_META = frozenset({"$schema", "$id", "$comment"})
_NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions"})

# ---------------------------------------------------------------- request body


def _function_call(part: ToolCallPart) -> dict[str, Any]:
    try:
        args = json.loads(part.arguments or "{}")
    except ValueError:
        args = None
    call: dict[str, Any] = {"name": part.name, "args": args if isinstance(args, dict) else {}}
    if part.provider_data.get(SERVER_ID) == part.id:
        call["id"] = part.id
    out: dict[str, Any] = {"functionCall": call}
    signature = part.provider_data.get(SIGNATURE)
    if isinstance(signature, str) and signature:
        out[SIGNATURE] = signature
    return out


def _function_response(result: ToolResultPart, calls: Mapping[str, ToolCallPart]) -> dict[str, Any]:
    call = calls.get(result.tool_call_id)
    key = "error" if result.is_error else "result"
    response: dict[str, Any] = {"name": call.name if call else result.name,
                                "response": {key: result.content}}  # fmt: skip
    if call is not None and call.provider_data.get(SERVER_ID) == call.id:
        response["id"] = call.id
    return {"functionResponse": response}


def _sign_text(out: list[dict[str, Any]], signature: str, chars: Any) -> None:
    """Give the last ``chars`` characters of the preceding text part their own signed part."""
    last = out[-1] if out else None
    n = chars if isinstance(chars, int) and not isinstance(chars, bool) else 0
    if n > 0 and last is not None and set(last) == {"text"} and len(last["text"]) >= n:
        text = last["text"]
        if len(text) == n:
            last[SIGNATURE] = signature
        else:
            last["text"] = text[:-n]
            out.append({"text": text[-n:], SIGNATURE: signature})
        return
    out.append({"text": "", SIGNATURE: signature})


def _model_parts(message: Message, calls: dict[str, ToolCallPart]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            if part.text:
                out.append({"text": part.text})
        elif isinstance(part, ToolCallPart):
            calls[part.id] = part
            out.append(_function_call(part))
        elif isinstance(part, ReasoningPart):
            signature = part.provider_data.get(SIGNATURE)
            if not isinstance(signature, str) or not signature:
                continue  # a thought summary (or another provider's reasoning): display only
            if SIGNED_TEXT in part.provider_data:
                _sign_text(out, signature, part.provider_data[SIGNED_TEXT])
            else:
                out.append({"text": part.text, "thought": True, SIGNATURE: signature})
        elif isinstance(part, ImagePart) and part.data and "generated" in part.provider_data:
            # the model's own picture, so that "now make it blue" edits it
            image: dict[str, Any] = {"inlineData": {"mimeType": part.media_type,
                                                    "data": part.data}}
            signature = part.provider_data.get(SIGNATURE)
            if isinstance(signature, str) and signature:
                image[SIGNATURE] = signature
            out.append(image)
    return out


def _user_parts(message: Message) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for part in message.parts:
        if (document := native_document(part)) is not None:
            _name, media_type, data = document  # Gemini reads the PDF itself
            out.append({"inlineData": {"mimeType": media_type, "data": data}})
        elif isinstance(part, TextPart) and part.text:
            out.append({"text": part.text})
        elif isinstance(part, ImagePart) and part.data:
            out.append({"inlineData": {"mimeType": part.media_type, "data": part.data}})
    return out


def contents_from_messages(messages: Iterable[Message]) -> tuple[list[dict[str, Any]], list[str]]:
    """``(contents, system_texts)``: roles ``user``/``model``; tool results become
    ``functionResponse`` parts of a user content (consecutive ones share one content,
    so a turn's responses answer its calls together); messages with nothing Gemini
    reads are left out (it rejects empty ``parts``)."""
    contents: list[dict[str, Any]] = []
    system: list[str] = []
    calls: dict[str, ToolCallPart] = {}
    for message in messages:
        if message.role == "system":
            if message.text:
                system.append(message.text)
            continue
        results = [_function_response(r, calls) for r in message.tool_results]
        if results:
            last = contents[-1] if contents else None
            if last is not None and all("functionResponse" in p for p in last["parts"]):
                last["parts"].extend(results)
            else:
                contents.append({"role": "user", "parts": results})
        if message.role == "assistant":
            role, parts = "model", _model_parts(message, calls)
        else:
            role, parts = "user", _user_parts(message)
        if parts:
            contents.append({"role": role, "parts": parts})
    return contents, system


def _inline_refs(node: Any, defs: Mapping[str, Any], stack: tuple[str, ...]) -> Any:
    """A copy of ``node`` with local ``$ref``s inlined (recursive ones are left as they are)
    and ``$schema``/``$id``/``$comment`` dropped."""
    if isinstance(node, list):
        return [_inline_refs(item, defs, stack) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref in defs and ref not in stack:
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        target = _inline_refs(defs[ref], defs, (*stack, ref))
        if not isinstance(target, dict):
            return target
        return {**target, **_inline_refs(siblings, defs, stack)}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _NAMED and isinstance(value, dict):  # keys are names here, not keywords
            out[key] = {name: _inline_refs(v, defs, stack) for name, v in value.items()}
        elif key not in _SCHEMA_META:
            out[key] = _inline_refs(value, defs, stack)
    return out


def _has_ref(node: Any) -> bool:
    if isinstance(node, dict):
        return "$ref" in node or any(_has_ref(v) for v in node.values())
    return isinstance(node, list) and any(_has_ref(v) for v in node)


def prepare_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A tool's JSON Schema as ``parametersJsonSchema`` takes it.

    Gemini accepts JSON Schema there (anyOf, type lists, additionalProperties, ...), so
    the schema is kept except: ``$schema``/``$id``/``$comment`` are dropped (some
    endpoints reject them), local ``$ref``s into ``$defs``/``definitions`` are inlined
    (the definitions are dropped once nothing points at them) and the root is an object.
    """
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        table = schema.get(key)
        if isinstance(table, dict):
            defs.update({f"#/{key}/{name}": value for name, value in table.items()})
    out = _inline_refs(dict(schema), defs, ())
    if not _has_ref({k: v for k, v in out.items() if k not in ("$defs", "definitions")}):
        out.pop("$defs", None)
        out.pop("definitions", None)
    out.setdefault("type", "object")
    return dict(out)


def _declaration(spec: ToolSpec) -> dict[str, Any]:
    declaration: dict[str, Any] = {"name": spec.name}
    if spec.description:
        declaration["description"] = spec.description
    schema = spec.parameters if isinstance(spec.parameters, dict) else {}
    if schema.get("properties") or schema.get("anyOf") or schema.get("oneOf"):
        declaration["parametersJsonSchema"] = prepare_schema(schema)
    return declaration  # no parameters: Gemini wants the field left out


def _thinking_config(request: ChatRequest, options: GeminiOptions) -> dict[str, Any] | None:
    budget = request.reasoning_budget
    effort = request.reasoning_effort
    level = options.thinking_level  # Gemini 3: "minimal" | "low" | "medium" | "high"
    if not (request.reasoning or budget is not None or effort or level):
        return None
    include = options.include_thoughts
    config: dict[str, Any] = {"includeThoughts": budget != 0 if include is None else include}
    if level:  # thinkingLevel and thinkingBudget may not be combined
        config["thinkingLevel"] = str(level)
    elif budget is not None:
        config["thinkingBudget"] = int(budget)
    elif isinstance(effort, str) and effort in EFFORT_BUDGETS:
        config["thinkingBudget"] = EFFORT_BUDGETS[effort]
    return config


def _tools(request: ChatRequest, options: GeminiOptions) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    if request.tools:
        tools.append({"functionDeclarations": [_declaration(t) for t in request.tools]})
    if options.google_search or request.web_search:
        tools.append({"googleSearch": {}})
    return tools


def _generation_config(request: ChatRequest, options: GeminiOptions) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if request.temperature is not None:
        config["temperature"] = request.temperature
    if request.max_tokens is not None:
        config["maxOutputTokens"] = request.max_tokens
    thinking = _thinking_config(request, options)
    if thinking is not None:
        config["thinkingConfig"] = thinking
    if makes_images(request.model):  # an image model answers with inlineData pictures
        config["responseModalities"] = ["TEXT", "IMAGE"]
    return config


def build_gemini_body(request: ChatRequest, options: GeminiOptions | None = None) -> dict[str, Any]:
    """The JSON body of ``streamGenerateContent``.

    Thinking follows the request (``reasoning``, ``reasoning_budget``,
    ``reasoning_effort``); ``options`` (the provider's): ``thinking_level`` (Gemini 3),
    ``include_thoughts`` (default: unless the budget is 0), ``google_search`` (adds the
    Search tool).
    Keys of ``request.extra`` override the body (object values are merged one level
    deep, so ``{"generationConfig": {"topP": 0.9}}`` adds to it); ``None`` removes a key.
    """
    opts = options or GeminiOptions()
    contents, system = contents_from_messages(request.messages)
    if request.system:
        system.insert(0, request.system)
    body: dict[str, Any] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": [{"text": text} for text in system]}
    tools = _tools(request, opts)
    if tools:
        body["tools"] = tools
    config = _generation_config(request, opts)
    if config:
        body["generationConfig"] = config
    for key, value in request.extra.items():
        if value is None:
            body.pop(key, None)
        elif isinstance(value, dict) and isinstance(body.get(key), dict):
            body[key] = {**body[key], **value}
        else:
            body[key] = value
    return body
