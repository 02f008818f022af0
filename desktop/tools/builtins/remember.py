"""remember: the model proposes a fact about the user to keep across chats.

The tool is made for each turn of a chat that may write memories (memory on in
Settings, not a temporary chat, not ``--no-memory``), bound to where the memory goes
(the chat's scope: global, or its project's). Its policy is Ask by default: the user
approves each memory, or chooses Allow (Settings → Memory, or the Tools dialog's
policy) to have them saved without asking. What was saved is shown in the chat
("Memory saved: … · Undo") from the call's result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from desktop.core.errors import ToolError
from desktop.tools.approval import ApprovalPreview, Policy
from desktop.tools.registry import Tool, ToolContext

#: Saves a memory's text; returns its id and its text as kept.
SaveMemory = Callable[[str], tuple[str, str]]


class Remember:
    """The facts of the ``remember`` tool; :meth:`tool` binds it to a place to save."""

    name: ClassVar[str] = "remember"
    title: ClassVar[str] = "Remember"  # shown to people (translated in the window)
    default_policy: ClassVar[Policy] = "ask"
    max_chars: ClassVar[int] = 500
    description: ClassVar[str] = (
        "Save a short fact about the user (a preference, a detail of their life or work) "
        "so that future chats know it. Use it when the user asks you to remember "
        "something, or when they share a lasting fact that will help later; one fact "
        "per call, written in the third person (\"The user's dog is called Pixel\"). "
        "Never save secrets such as passwords or keys.")
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "fact": {"type": "string", "minLength": 1, "maxLength": 500,
                     "description": "The fact to remember, one sentence."},
        },
        "required": ["fact"],
        "additionalProperties": False,
    }

    @classmethod
    def tool(cls, save: SaveMemory) -> Tool:
        async def handle(args: dict[str, Any], _ctx: ToolContext) -> Any:
            fact = " ".join(str(args.get("fact", "")).split())
            if not fact:
                raise ToolError("The fact to remember is empty.")
            memory_id, text = save(fact)
            return {"saved": True, "memory_id": memory_id, "text": text}

        async def preview(args: dict[str, Any], _ctx: ToolContext) -> ApprovalPreview:
            shown = ApprovalPreview.arguments(args)  # the fact, as it would be kept
            return ApprovalPreview.titled(shown.kind, shown.text, "remember")

        return Tool(name=cls.name, title=cls.title, description=cls.description,
                    parameters=cls.parameters, handler=handle, read_only=False,
                    default_policy=cls.default_policy, preview=preview,
                    deferred_check=True)  # a constant schema (the tests check it)
