"""What the user lets tools reach beyond their safe defaults (Settings -> Tools).

Handed to every call through :class:`~desktop.tools.registry.ToolContext` so that
a tool never reads settings or the process environment itself:
``fetch_allow_hosts`` are hosts, addresses or networks ``fetch_url`` may reach even
when they are local or private; ``command_env`` names the environment variables a
``run_command`` command gets besides the scrubbed base environment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.core.settings import AppSettings


@dataclass(frozen=True, slots=True)
class ToolTrust:
    fetch_allow_hosts: tuple[str, ...] = ()
    command_env: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: AppSettings) -> ToolTrust:
        return cls(tuple(settings.fetch_allow_hosts), tuple(settings.command_env))


__all__ = ["ToolTrust"]
