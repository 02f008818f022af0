"""Prompts and resources as the app's message parts.

A prompt's messages become the user's turn: their text joined (a role other than
the user's is named, since the turn is the user's), then images and embedded
resources as attachments. A resource becomes an attachment as a file would: text
as a named fenced block (:func:`~desktop.core.attachments.text_attachment_block`),
images as image parts; other binary content is named but not sent.
"""

from __future__ import annotations

import base64
import binascii

import mcp_types as mt
import msgspec

from desktop.core.attachments import IMAGE_TYPES, text_attachment_block
from desktop.core.messages import ImagePart, Part, TextPart

#: ``provider_data`` key of a part that came from an MCP resource: {"server", "uri"}.
RESOURCE_KEY = "mcp_resource"


class PromptTurn(msgspec.Struct):
    """What a prompt puts in the user's turn: ``text`` and attachment ``parts``."""

    text: str
    parts: list[Part] = msgspec.field(default_factory=list)

    def with_question(self, question: str) -> str:
        """The prompt's text, then what the user typed."""
        return "\n\n".join(t for t in (self.text.strip(), question.strip()) if t)


def prompt_turn(server: str, result: mt.GetPromptResult) -> PromptTurn:
    texts: list[str] = []
    parts: list[Part] = []
    for message in result.messages:
        block = message.content
        if isinstance(block, mt.TextContent):
            texts.append(block.text if message.role == "user" else
                         f"({message.role}) {block.text}")
        elif isinstance(block, mt.ImageContent):
            parts.append(ImagePart(media_type=block.mime_type, data=block.data,
                                   name=f"{server} prompt image"))
        elif isinstance(block, mt.EmbeddedResource):
            parts += resource_parts(server, [block.resource])
        elif isinstance(block, mt.ResourceLink):
            texts.append(f"(resource {block.uri})")
        else:
            texts.append(f"({block.type} content is not supported)")
    return PromptTurn("\n\n".join(texts), parts)


def resource_parts(server: str, contents: list[mt.TextResourceContents |
                                              mt.BlobResourceContents]) -> list[Part]:
    parts: list[Part] = []
    for item in contents:
        uri = str(item.uri)
        origin = {RESOURCE_KEY: {"server": server, "uri": uri}}
        if isinstance(item, mt.TextResourceContents):
            parts.append(TextPart(text=text_attachment_block(uri, item.text),
                                  provider_data={"attachment": uri, **origin}))
        elif (item.mime_type or "") in IMAGE_TYPES:
            parts.append(ImagePart(media_type=item.mime_type or "image/png", data=item.blob,
                                   name=uri, provider_data=origin))
        else:
            text = _as_text(item.blob)
            body = text if text is not None else (
                f"(binary {item.mime_type or 'content'}, {decoded_size(item.blob)} bytes, "
                "not included)")
            parts.append(TextPart(text=text_attachment_block(uri, body),
                                  provider_data={"attachment": uri, **origin}))
    return parts


def _as_text(blob: str) -> str | None:
    try:
        data = base64.b64decode(blob, validate=True)
        return None if b"\x00" in data[:8192] else data.decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def decoded_size(data: str) -> int:
    """The size of base64 ``data`` once decoded (its padding and line breaks not
    counted); an estimate when it is not valid base64."""
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data.rstrip("=")) * 3 // 4
