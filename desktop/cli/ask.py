"""``assista ask``: the orchestrator from the command line.

Plain mode writes the answer text to stdout exactly as streamed. ``--json`` writes
one JSON object per event (and then the final messages), one per line. Errors go
to stderr as one line and the exit status is non-zero.

Tools follow the same approval policies as the window. A call that needs approval
is asked about on the terminal when stdin is a TTY; otherwise it is denied (the
model is told) unless ``--approve-all`` or ``--allow NAME`` is given.
``--mcp-config FILE`` adds the MCP servers of a Claude-Desktop-style JSON file for
this run (their tools are enabled), next to the configured ones.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from typing import TYPE_CHECKING, Any, TextIO

from desktop.app import AppContext
from desktop.cli.commands import fail
from desktop.core.agent_events import AgentEvent, LimitReached, ToolRunFinished, ToolRunStarted
from desktop.core.conversation import auto_title, run_turn
from desktop.core.errors import AssistaError, ConfigError
from desktop.core.events import ErrorEvent, TextDelta, event_to_dict
from desktop.core.messages import Message
from desktop.core.orchestrator import RunResult
from desktop.core.settings import AppSettings, ProviderConfig
from desktop.core.tooling import NoTools, ToolRunner
from desktop.providers.presets import PRESETS
from desktop.tools.approval import Approver, Policy, allow_all
from desktop.tools.mcp.config import McpServerConfig, load_mcp_config
from desktop.tools.terminal_approver import TerminalApprover

if TYPE_CHECKING:
    from desktop.tools.mcp.manager import McpManager

log = logging.getLogger(__name__)

EXIT_ERROR = 1
EXIT_LIMIT = 3
EXIT_INTERRUPTED = 130


GRANTS_FILE = "tool_grants.json"


def resolve_provider(ctx: AppContext, args: argparse.Namespace,
                     settings: AppSettings) -> ProviderConfig:
    """Pick the provider from --provider / --base-url / settings / the environment."""
    config: ProviderConfig | None = None
    if args.provider:
        config = ctx.find_provider(args.provider)
        if config is None:
            preset = PRESETS.get(args.provider.strip().lower())
            if preset is None:
                raise ConfigError(
                    f"no provider or preset named {args.provider!r} "
                    "(configure it in the app, or use a preset name such as 'openai')"
                )
            base_url = args.base_url or preset.base_url
            if not base_url:
                raise ConfigError(f"preset {preset.id!r} needs --base-url")
            found = preset.key_from_env(ctx.environ)
            config = ProviderConfig(name=preset.name, kind=preset.kind, preset=preset.id,
                                    base_url=base_url, model=preset.default_model or "",
                                    headers=dict(preset.headers), source="environment",
                                    api_key_env=found[0] if found else preset.api_key_env)
    elif args.base_url:
        config = ProviderConfig(name="OpenAI-compatible", kind="openai", preset="custom",
                                base_url=args.base_url, source="environment",
                                api_key_env="OPENAI_API_KEY")
    else:
        config = ctx.active_provider(settings)
        if config is None:
            raise ConfigError(
                "no provider configured: add one in the app, or pass --base-url URL "
                "(with OPENAI_API_KEY) or --provider NAME"
            )
    updates: dict[str, Any] = {}
    if args.base_url:
        updates["base_url"] = args.base_url
    if args.model:
        updates["model"] = args.model
    config = config.model_copy(update=updates)
    if not config.model:
        raise ConfigError(f"no model chosen for provider {config.name!r}: pass --model M")
    return config


class _Printer:
    def __init__(self, out: TextIO, err: TextIO, as_json: bool) -> None:
        self.out = out
        self.err = err
        self.as_json = as_json
        self.show_tools = not as_json and err.isatty()

    def __call__(self, event: AgentEvent) -> None:
        if self.as_json:
            self.out.write(json.dumps(event_to_dict(event), ensure_ascii=False) + "\n")
            self.out.flush()
            return
        if isinstance(event, TextDelta):
            self.out.write(event.text)
            self.out.flush()
        elif isinstance(event, ToolRunStarted) and self.show_tools:
            self.err.write(f"\n⚙ {event.call.name} {event.call.arguments[:120]}\n")
        elif isinstance(event, ToolRunFinished) and self.show_tools:
            mark = "✓" if not event.result.is_error else "✗"
            self.err.write(f"  {mark} {event.result.status}\n")
        elif isinstance(event, LimitReached) and not event.will_ask:
            self.err.write(f"assista: stopped after {event.rounds} tool rounds (limit)\n")
        elif isinstance(event, ErrorEvent):
            pass  # reported once, at the end, as the run's error


async def _confirm_on_tty(rounds: int) -> bool:
    if not sys.stdin.isatty():
        return False
    answer = await asyncio.to_thread(
        input, f"\nThe agent has run {rounds} tool rounds. Continue? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def _read_prompt(prompt: str) -> str:
    if prompt == "-":
        return sys.stdin.read()
    return prompt


def _mcp_configs(ctx: AppContext, args: argparse.Namespace, settings: AppSettings) -> tuple[
        list[McpServerConfig], set[str]]:
    """Configured servers plus those of ``--mcp-config`` files (whose names are returned)."""
    configured = ctx.mcp_configs(settings)
    from_files: list[McpServerConfig] = []
    for path in getattr(args, "mcp_config", None) or []:
        from_files += load_mcp_config(path)
    names = {c.name for c in from_files}
    merged = [c for c in configured if c.name not in names] + from_files
    return merged, names


async def _start_mcp(configs: list[McpServerConfig], err: TextIO) -> McpManager | None:
    if not configs:
        return None
    from desktop.tools.mcp.manager import McpManager  # the SDK takes ~0.5 s to import

    manager = McpManager(configs)
    for name, ok in (await manager.start_all()).items():
        connection = manager.get(name)
        if not ok and connection is not None:
            await connection.stop()
            reason = connection.last_error or connection.state
            err.write(f"assista: warning: MCP server {name!r} is not available: {reason}\n")
    return manager


def _approver(args: argparse.Namespace) -> Approver | None:
    if getattr(args, "approve_all", False):
        return allow_all
    if sys.stdin.isatty():
        return TerminalApprover(sys.stderr)
    return None  # nobody to ask: calls that need approval are denied


def _build_tools(ctx: AppContext, args: argparse.Namespace, settings: AppSettings, *,
                 workspace: str | None, mcp: McpManager | None,
                 mcp_from_files: set[str]) -> ToolRunner:
    """--tools (or the settings' built-ins when a workspace is set, plus the tools of the
    configured MCP servers), plus every tool of --mcp-config servers, plus --allow names."""
    registry = mcp.registry(ctx.registry) if mcp is not None else ctx.registry
    allowed = [n.strip() for n in getattr(args, "allow", None) or [] if n.strip()]
    if args.tools is not None:
        enabled = [t.strip() for t in args.tools.split(",") if t.strip()]
    else:
        enabled = list(settings.enabled_tools) if workspace else []
        enabled += [t.name for t in registry if t.source != "builtin"]
    extra = [t.name for t in registry if t.source in mcp_from_files] + allowed
    enabled += [name for name in extra if name not in enabled]
    unknown = [name for name in enabled if registry.get(name) is None]
    if unknown:
        raise ConfigError(f"unknown tool(s): {', '.join(unknown)}; available: "
                          f"{', '.join(registry.names())}")
    if not enabled:
        return NoTools()
    policies: dict[str, Policy] = {name: "allow" for name in allowed}
    return ctx.build_tools(workspace, enabled, registry=registry, settings=settings,
                           approver=_approver(args), extra_policies=policies)


async def _ask(ctx: AppContext, args: argparse.Namespace,
               printer: _Printer) -> tuple[Message, RunResult]:
    settings = ctx.load_settings()
    config = resolve_provider(ctx, args, settings)
    workspace = args.workspace or settings.workspace
    prompt = _read_prompt(args.prompt)
    if not prompt.strip():
        raise ConfigError("the prompt is empty")
    mcp_configs, mcp_from_files = _mcp_configs(ctx, args, settings)
    mcp = await _start_mcp(mcp_configs, printer.err)
    try:
        tools = _build_tools(ctx, args, settings, workspace=workspace, mcp=mcp,
                             mcp_from_files=mcp_from_files)
        return await _converse(ctx, args, printer, settings, config=config, tools=tools,
                               prompt=prompt, workspace=workspace)
    finally:
        if mcp is not None:
            await mcp.stop_all()


async def _converse(ctx: AppContext, args: argparse.Namespace, printer: _Printer,
                    settings: AppSettings, *, config: ProviderConfig, tools: ToolRunner,
                    prompt: str, workspace: str | None) -> tuple[Message, RunResult]:
    if not ctx.capabilities_for(config, config.model).tools:
        tools = NoTools()  # this model cannot call tools (or the user said so)
    provider = ctx.build_provider(config)
    orchestrator = ctx.build_orchestrator(provider, tools, settings, _confirm_on_tty,
                                          config=config)
    system = args.system if args.system is not None else settings.system_prompt
    history: list[Message] = []
    user_message = Message.user(prompt)
    try:
        if args.no_save:
            history.append(user_message)
            return user_message, await orchestrator.run(history, model=config.model,
                                                        system=system, sink=printer)
        if args.session:
            info = ctx.sessions.get_session(args.session)
            if info is None:
                raise ConfigError(f"no session with id {args.session!r}")
            session_id = info.id
            history = ctx.sessions.load_messages(session_id)
        else:
            session_id = ctx.sessions.create_session(
                title=auto_title(prompt), provider_id=config.id, model=config.model,
                workspace=workspace).id
        result = await run_turn(orchestrator, ctx.sessions, session_id, history,
                                user_message, model=config.model, system=system,
                                sink=printer)
        return user_message, result
    finally:
        await provider.aclose()


def ask_command(args: argparse.Namespace) -> int:
    out, err = sys.stdout, sys.stderr
    printer = _Printer(out, err, args.json)
    try:
        ctx = AppContext.open(getattr(args, "data_dir", None), log_to_stderr=False)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        user_message, result = asyncio.run(_ask(ctx, args, printer))
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)
    except AssistaError as exc:
        log.info("ask failed: %s", exc)
        return fail(str(exc))
    except Exception as exc:  # an unexpected bug: one line for the user, details in the log
        log.exception("ask crashed")
        return fail(f"unexpected error: {exc} (details in {ctx.paths.logs_dir})")
    finally:
        ctx.close()
    if args.json:
        final = {"type": "messages", "status": result.status,
                 "messages": [m.model_dump(mode="json")
                              for m in [user_message, *result.new_messages]]}
        out.write(json.dumps(final, ensure_ascii=False) + "\n")
    elif out.isatty() and not result.text.endswith("\n"):
        out.write("\n")
    out.flush()
    if result.status == "error":
        return fail(result.error or "the request failed")
    if result.status == "limit":
        return EXIT_LIMIT
    return 0
