"""Between MCP and our tool layer: names, schemas and results.

Tool names become ``<server>__<tool>``, reduced to the characters every provider
accepts (``[A-Za-z0-9_-]``, at most 64; long names keep a short hash so they stay
unique). Results become our JSON: text blocks as text, resources with their URI
and text, structured content as is. Images (and image blobs) are not sent to the
model as base64: the result names them, and the data goes into the result
part's ``provider_data["images"]`` (``mime_type`` + base64 ``data``) for the UI.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from typing import Any

import mcp_types as mt

from desktop.tools.errors import ToolFailure
from desktop.tools.mcp.content import decoded_size
from desktop.tools.results import ToolOutput
from desktop.tools.validation import build_validator

MAX_NAME = 64
SEPARATOR = "__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def sanitize(text: str) -> str:
    cleaned = _UNSAFE.sub("_", text).strip("_")
    return cleaned or "x"


def exposed_name(server: str, tool: str, taken: set[str] | None = None) -> str:
    """``<server>__<tool>``, provider-safe, at most 64 characters, not in ``taken``."""
    name = f"{sanitize(server)}{SEPARATOR}{sanitize(tool)}"
    if len(name) > MAX_NAME:
        digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME - 9]}_{digest}"
    if taken is not None:
        base, n = name, 2
        while name in taken:
            suffix = f"_{n}"
            name = base[: MAX_NAME - len(suffix)] + suffix
            n += 1
    return name


def input_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    """The tool's input schema if we can validate with it, else a permissive object."""
    candidate = copy.deepcopy(schema) if isinstance(schema, dict) else {}
    candidate.setdefault("type", "object")
    if candidate.get("type") != "object":
        return {"type": "object"}
    try:
        build_validator(candidate)
    except Exception:  # a schema our validator cannot use: let the server validate
        return (
            {"type": "object", "properties": candidate.get("properties", {})}
            if _usable(candidate.get("properties"))
            else {"type": "object"}
        )
    return candidate


def _usable(properties: Any) -> bool:
    if not isinstance(properties, dict):
        return False
    try:
        build_validator({"type": "object", "properties": properties})
    except Exception:
        return False
    return True


def convert_result(result: mt.CallToolResult) -> ToolOutput:
    """Our result for a successful call; ``ToolFailure`` when the tool reported an error."""
    items: list[dict[str, Any]] = []
    images: list[dict[str, Any]] = []
    user_only: list[dict[str, Any]] = []  # shown to the user, never sent to the model
    for block in result.content:
        (user_only if for_user_only(block) else items).append(_block(block, images))
    structured = result.structured_content
    if structured is not None and all(
        i.get("type") == "text" and _is_json_of(i["text"], structured) for i in items
    ):
        items = []  # the text blocks only repeat the structured content as JSON
    payload: dict[str, Any] = {}
    if len(items) == 1 and items[0].get("type") == "text":
        payload["text"] = items[0]["text"]
    elif items or structured is None:
        payload["content"] = items
        if not items and user_only:
            payload["note"] = "The result was shown to the user; it is not meant for you."
    if structured is not None:
        payload["structured_content"] = structured
    extra: dict[str, Any] = {"images": images} if images else {}
    if user_only:
        extra["user_only"] = user_only
    if result.is_error:
        texts = [i["text"] for i in items if i.get("type") == "text"]
        message = "\n".join(texts).strip() or "The MCP tool reported an error."
        raise ToolFailure(message[:4_000], code="mcp_tool_error", extra={"content": items})
    return ToolOutput(payload, extra)


def for_user_only(block: Any) -> bool:
    """A block annotated ``audience: ["user"]``: meant for the person, not the model."""
    annotations = getattr(block, "annotations", None)
    audience = getattr(annotations, "audience", None) or []
    return bool(audience) and "assistant" not in audience


def _is_json_of(text: str, value: Any) -> bool:
    try:
        return bool(json.loads(text) == value)
    except ValueError:
        return False


def _block(block: Any, images: list[dict[str, Any]]) -> dict[str, Any]:
    if isinstance(block, mt.TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, mt.ImageContent | mt.AudioContent):
        kind = "image" if isinstance(block, mt.ImageContent) else "audio"
        size = decoded_size(block.data)
        if kind == "image":
            images.append({"mime_type": block.mime_type, "data": block.data})
        return {
            "type": kind,
            "mime_type": block.mime_type,
            "size_bytes": size,
            "note": f"The {kind} was shown to the user; its data is not included here.",
        }
    if isinstance(block, mt.EmbeddedResource):
        res = block.resource
        entry: dict[str, Any] = {"type": "resource", "uri": str(res.uri)}
        if res.mime_type:
            entry["mime_type"] = res.mime_type
        if isinstance(res, mt.TextResourceContents):
            entry["text"] = res.text
        else:
            entry["size_bytes"] = decoded_size(res.blob)
            if (res.mime_type or "").startswith("image/"):
                images.append({"mime_type": res.mime_type, "data": res.blob})
                entry["note"] = "The image was shown to the user; its data is not included here."
            else:
                entry["note"] = "Binary content, not included."
        return entry
    if isinstance(block, mt.ResourceLink):
        link: dict[str, Any] = {"type": "resource_link", "uri": str(block.uri), "name": block.name}
        if block.description:
            link["description"] = block.description
        if block.mime_type:
            link["mime_type"] = block.mime_type
        return link
    dumped = (
        block.model_dump(mode="json", exclude_none=True) if hasattr(block, "model_dump") else {}
    )
    return {"type": str(dumped.get("type", "unknown")), **dumped}
