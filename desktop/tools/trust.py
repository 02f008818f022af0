"""What the user lets tools reach beyond their safe defaults (Settings -> Tools).

Handed to every call through :class:`~desktop.tools.registry.ToolContext` so that
a tool never reads settings or the process environment itself:
``fetch_allow_hosts`` are hosts, addresses or networks ``fetch_url`` may reach even
when they are local or private; ``command_env`` names the environment variables a
``run_command`` command gets besides the scrubbed base environment; ``command_sandbox``
and ``command_network`` say whether commands run in the system's sandbox and may use the
network there (``command_network_chat``: this chat's commands may, a grant given on an
approval: see :class:`~desktop.tools.approval.ChatGrants`); ``hidden_paths`` are
folders a sandboxed command never sees (the app's data folder).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from desktop.core.settings import AppSettings


class ToolTrust(msgspec.Struct, frozen=True):
    """What the user lets tools reach beyond their safe defaults (the module says each)."""

    fetch_allow_hosts: tuple[str, ...] = ()
    command_env: tuple[str, ...] = ()
    command_sandbox: bool = True
    command_network: bool = False
    hidden_paths: tuple[str, ...] = ()
    # Folders inside a hidden one a sandboxed command may still read (the app's skills)
    shown_paths: tuple[str, ...] = ()
    command_network_chat: bool = False

    @classmethod
    def from_settings(cls, settings: AppSettings, *, hidden_paths: tuple[str, ...] = (),
                      shown_paths: tuple[str, ...] = ()) -> ToolTrust:
        return cls(tuple(settings.fetch_allow_hosts), tuple(settings.command_env),
                   settings.command_sandbox, settings.command_network, hidden_paths,
                   shown_paths)


__all__ = ["ToolTrust"]
