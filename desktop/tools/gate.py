"""The approval gate: decide from policies and grants, and ask the user when needed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from desktop.core.errors import ToolError
from desktop.core.messages import ToolCallPart
from desktop.tools.approval import (
    ApprovalDecision,
    ApprovalPreview,
    ApprovalRequest,
    Approver,
    ChatGrants,
    Policy,
)
from desktop.tools.grant_scopes import (
    always_needs_scope,
    check_scope,
    grant_arguments,
    proposed_scope,
    scope_kind,
)
from desktop.tools.grants import GrantStore
from desktop.tools.registry import Tool, ToolContext
from desktop.tools.trust import ToolTrust
from desktop.tools.workspace import Workspace

log = logging.getLogger(__name__)

Verdict = Literal["allow", "deny", "ask"]

#: To the model, when a command asked for the network and nobody can allow it.
NO_NETWORK = (
    "The command asked for the network, which commands do not have here unless the user "
    "allows it, and no one can be asked in this session, so it was not run. Run it "
    "without the network, or tell the user it needs the network (Settings > Tools)."
)


class ApprovalGate:
    """Policies (settings overrides, else the tool's default), grants and the approver.

    ``approver=None`` means nobody can be asked: calls that need approval are
    denied. Grants apply only to tools whose policy is ``ask``: ``deny`` always wins.
    """

    def __init__(
        self,
        *,
        policies: Mapping[str, Policy] | None = None,
        approver: Approver | None = None,
        grants: GrantStore | None = None,
        chat_grants: ChatGrants | None = None,
    ) -> None:
        self.policies: dict[str, Policy] = dict(policies or {})
        self.approver = approver
        self.grants = grants
        self.chat_grants = chat_grants if chat_grants is not None else ChatGrants()

    def policy_for(self, tool: Tool) -> Policy:
        return self.policies.get(tool.name, tool.policy)

    def verdict(self, tool: Tool, args: Mapping[str, Any] | None = None,
                workspace: Workspace | None = None) -> Verdict:
        """``args``: the call's arguments, for grants scoped to a path, command or host
        (without them only whole-tool grants count); ``workspace``: where a path's
        symbolic links are resolved before it is matched (without it, no path grant
        matches)."""
        policy = self.policy_for(tool)
        if policy != "ask":
            return policy
        if tool.name in self.chat_grants:
            return "allow"
        if self.grants is None:
            return "ask"
        scoped = always_needs_scope(tool.name, tool.source)
        matched = None if args is None else (
            grant_arguments(tool.name, args, workspace) if scoped else args)
        # (a whole-tool grant of a scoped tool, kept from an older version, does not
        # reach into .git or through a link out of the workspace either)
        if self.grants.has(tool.name) and (matched is not None or not scoped):
            return "allow"
        if matched is not None and self.grants.allows(tool.name, matched):
            return "allow"
        return "ask"

    def trust_for(self, trust: ToolTrust, *, once: bool = False) -> ToolTrust:
        """What a call of this chat may reach: ``trust`` with the chat's network grant
        (``once``: the network allowed for this call only)."""
        if self.chat_grants.command_network:
            return msgspec.structs.replace(trust, command_network_chat=True)
        return msgspec.structs.replace(trust, command_network=True) if once else trust

    @staticmethod
    def wants_network(tool: Tool, args: Mapping[str, Any], trust: ToolTrust) -> bool:
        """The call says it needs the network (its tool's ``network_argument``), and
        neither the settings nor the chat allow commands the network."""
        return (bool(tool.network_argument) and args.get(tool.network_argument) is True
                and not (trust.command_network or trust.command_network_chat))

    async def preview(
        self, tool: Tool, args: dict[str, Any], ctx: ToolContext, timeout_s: float
    ) -> ApprovalPreview:
        """The preview for the user. A ToolError means the call cannot succeed: it is
        reported to the model at once, without asking."""
        if tool.preview is None:
            return ApprovalPreview.arguments(args, title=tool.name)
        try:
            async with asyncio.timeout(timeout_s):
                return await tool.preview(args, ctx)
        except ToolError:
            raise
        except Exception as exc:  # a broken preview must not block the decision
            log.warning("preview for %s failed: %s", tool.name, exc)
            fallback = ApprovalPreview.arguments(args, title=tool.name)
            return ApprovalPreview(
                fallback.kind, fallback.text, fallback.title, error=f"No preview: {exc}"
            )

    async def ask(
        self, tool: Tool, call: ToolCallPart, args: dict[str, Any], preview: ApprovalPreview,
        workspace: Workspace | None = None, *, network: bool = False,
    ) -> ApprovalDecision:
        """Ask the approver; keep what it grants. The scope proposed for a write is
        from its real path (a link into .git proposes nothing). ``network``: the call
        asks for the network (see :attr:`ApprovalRequest.network`): "for this chat"
        grants the chat's commands the network, not the tool."""
        if network:
            preview = msgspec.structs.replace(
                ApprovalPreview.titled(preview.kind, preview.text, "command_network"),
                confinement=preview.confinement, error=preview.error)
        if self.approver is None:
            return ApprovalDecision.deny(
                "This tool needs approval and no one can be asked in this session."
            )
        request = ApprovalRequest(
            tool=tool.name,
            call_id=call.id,
            arguments=args,
            preview=preview,
            source=tool.source,
            description=tool.description,
            read_only=tool.read_only,
            proposed_scope="" if network else self._proposal(tool, args, workspace),
            always_needs_scope=always_needs_scope(tool.name, tool.source),
            network=network,
        )
        decision = await self.approver(request)
        if network:
            if decision.kind == "allow_chat":
                self.chat_grants.command_network = True
            return decision  # (nothing else is kept: the tool asks as it did)
        if decision.kind == "allow_chat":
            self.chat_grants.add(tool.name)
        elif decision.kind == "allow_always" and (decision.scope or request.always_needs_scope):
            # (a scoped tool is never granted whole: without a valid scope, this call
            # was allowed and nothing is remembered)
            problem = check_scope(tool.name, decision.scope)
            if problem is not None:
                log.warning("not keeping a grant for %s: %s", tool.name, problem)
            elif self.grants is not None:
                self.grants.add(tool.name, source=tool.source, scope=decision.scope)
        elif decision.kind == "allow_always":
            if self.grants is None:
                self.chat_grants.add(tool.name)  # nowhere to persist: remember for this chat
            else:
                self.grants.add(tool.name, source=tool.source)
        return decision

    @staticmethod
    def _proposal(tool: Tool, args: dict[str, Any], workspace: Workspace | None) -> str:
        if tool.source != "builtin":
            return ""
        if scope_kind(tool.name) != "path":
            return proposed_scope(tool.name, args)
        real = grant_arguments(tool.name, args, workspace)
        return "" if real is None else proposed_scope(tool.name, real)
