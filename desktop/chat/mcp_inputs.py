"""What the user can put into a turn from MCP servers: prompts (the composer's
slash commands) and resources (attached like files), for the window.

Qt-free, over the chat's :class:`~desktop.chat.chat_tools.ChatTools`: lists from
the running servers (kept current by their list_changed notifications), a prompt's
messages as the user's turn, a resource read afresh as attachment parts, and a
resource template filled in (RFC 6570, through the SDK's UriTemplate).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from desktop.core.errors import ConfigError

if TYPE_CHECKING:
    import mcp_types as mt

    from desktop.chat.chat_tools import ChatTools
    from desktop.core.messages import Part
    from desktop.tools.mcp.content import PromptTurn
    from desktop.tools.mcp.manager import McpManager


class PromptChoice(msgspec.Struct, frozen=True):
    """A prompt offered as ``/name`` (``server:name`` when two servers share it)."""

    server: str
    prompt: mt.Prompt
    command: str

    @property
    def arguments(self) -> list[mt.PromptArgument]:
        return list(self.prompt.arguments or [])


class McpInputs:
    def __init__(self, tools: ChatTools) -> None:
        self.tools = tools

    def _running(self) -> set[str]:
        manager = self.tools.mcp
        if manager is None:
            return set()
        return {c.name for c in manager.connections.values() if c.state == "running"}

    def prompts(self) -> list[PromptChoice]:
        manager = self.tools.mcp
        if manager is None:
            return []
        running = self._running()
        pairs = [(s, p) for s, p in manager.prompts() if s in running]
        names = [p.name for _s, p in pairs]
        return [PromptChoice(s, p, p.name if names.count(p.name) == 1 else f"{s}:{p.name}")
                for s, p in pairs]

    def resources(self) -> list[tuple[str, mt.Resource]]:
        manager = self.tools.mcp
        running = self._running()
        return [(s, r) for s, r in manager.resources() if s in running] if manager else []

    def templates(self) -> list[tuple[str, mt.ResourceTemplate]]:
        manager = self.tools.mcp
        running = self._running()
        return [(s, t) for s, t in manager.templates() if s in running] if manager else []

    async def prompt_turn(self, choice: PromptChoice, arguments: dict[str, str]) -> PromptTurn:
        missing = [a.name for a in choice.arguments if a.required and not arguments.get(a.name)]
        if missing:
            raise ConfigError(f"the prompt {choice.command} needs {', '.join(missing)}",
                              code="prompt_needs_arguments",
                              params={"prompt": choice.command, "names": ", ".join(missing)})
        return await self._manager().get_prompt(choice.server, choice.prompt.name,
                                                {k: v for k, v in arguments.items() if v})

    async def read(self, server: str, uri: str) -> list[Part]:
        return await self._manager().read_resource(server, uri)

    def subscribe(self, server: str, uri: str) -> None:
        """Hear when ``uri`` changes (ChatTools.on_mcp_event gets a ResourceChanged)."""
        manager = self.tools.mcp
        if manager is not None and server in manager.connections:
            manager.subscribe(server, uri)

    def unsubscribe(self, server: str, uri: str) -> None:
        manager = self.tools.mcp
        if manager is not None and server in manager.connections:
            manager.unsubscribe(server, uri)

    def _manager(self) -> McpManager:
        manager = self.tools.mcp
        if manager is None:
            raise ConfigError("no MCP servers are running", code="no_mcp_running")
        return manager


def template_variables(template: str) -> list[str]:
    from mcp.shared.uri_template import UriTemplate

    return list(UriTemplate.parse(template).variable_names)


def fill_template(template: str, values: dict[str, str]) -> str:
    """The URI for ``values``; ``ValueError`` names an empty variable."""
    from mcp.shared.uri_template import UriTemplate

    parsed = UriTemplate.parse(template)
    empty = [n for n in parsed.variable_names if not values.get(n, "").strip()]
    if empty:
        raise ValueError(f"fill in {', '.join(empty)}")
    return parsed.expand({n: values[n].strip() for n in parsed.variable_names})
