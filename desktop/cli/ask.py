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
from typing import Any, TextIO

from desktop.app import AppContext
from desktop.chat.events import (
    ChatEvent,
    ConfirmRequested,
    ProviderRetrying,
    TurnEnded,
    TurnFailed,
    TurnQueued,
)
from desktop.chat.profile import ChatRef, NewChat
from desktop.chat.research.progress import ResearchProgress
from desktop.chat.service import ChatService
from desktop.chat.turn_plan import TurnOverrides
from desktop.cli.context import open_cli_context
from desktop.cli.failure import fail, output_closed
from desktop.cli.interrupt import exit_status, run_interruptible
from desktop.cli.mcp_inputs import mcp_turn, wants_mcp_inputs
from desktop.cli.mcp_sign_in import TerminalBrowser, sign_in_needed_text, sign_in_where_needed
from desktop.cli.mcp_terminal import TerminalElicitor, TerminalSamplingApprover
from desktop.cli.research_lines import ResearchLines, research_limits
from desktop.cli.terminal_lines import TerminalLines
from desktop.core.agent_events import LimitReached, ToolRunFinished, ToolRunStarted
from desktop.core.errors import AssistaError, ConfigError
from desktop.core.events import ErrorEvent, ImageEvent, TextDelta, event_to_dict
from desktop.core.messages import Message, Part
from desktop.core.orchestrator import RunResult
from desktop.core.settings import ProviderConfig
from desktop.core.terminal_text import visible
from desktop.knowledge.store import KnowledgeBase
from desktop.providers.presets import find_preset
from desktop.tools.approval import Approver, ToolProgress, allow_all
from desktop.tools.mcp.config import McpServerConfig, load_mcp_config
from desktop.tools.terminal_approver import TerminalApprover

log = logging.getLogger(__name__)

EXIT_ERROR = 1
EXIT_LIMIT = 3
EXIT_INTERRUPTED = 130


NOT_PRINTED = (ToolProgress, ProviderRetrying, TurnQueued, ConfirmRequested, TurnFailed,
               TurnEnded)


def resolve_provider(ctx: AppContext, args: argparse.Namespace, service: ChatService,
                     chat: ChatRef) -> ProviderConfig:
    """Pick the provider from --provider / --base-url, else the chat's own (a new
    chat's: the one picked last in the app, or from the environment)."""
    config: ProviderConfig | None = None
    if args.provider:
        config = ctx.providers.find(args.provider)
        if config is None:
            preset = find_preset(args.provider.strip().lower())
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
        config = service.profiles.provider(chat)
        if config is None:
            raise ConfigError(
                "no provider configured: add one in the app, or pass --base-url URL "
                "(with OPENAI_API_KEY) or --provider NAME"
            )
        config = config.model_copy(update={"model": service.profiles.model(chat)})
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
        self.lines = TerminalLines(err)  # never inside a question waiting for an answer
        self.as_json = as_json
        self.show_tools = not as_json and err.isatty()
        self.closed = False  # the output's reader went away
        self.research = ResearchLines(err)

    def __call__(self, event: ChatEvent) -> None:
        if self.closed:
            return
        if isinstance(event, ToolProgress) and event.kind == "progress":
            try:
                self._progress(event)
            except BrokenPipeError:
                self.closed = True
            return
        if isinstance(event, ResearchProgress) and not self.as_json:
            try:
                self.research(event)
            except BrokenPipeError:
                self.closed = True
            return
        if isinstance(event, NOT_PRINTED):
            return  # the service's own news; the output is the agent loop's events
        try:
            self._print(event)
        except BrokenPipeError:  # the reader went away (| head): the answer goes on, saved
            self.closed = True

    def _print(self, event: ChatEvent) -> None:
        if self.as_json:
            self.out.write(json.dumps(event_to_dict(event), ensure_ascii=False) + "\n")
            self.out.flush()
            return
        if isinstance(event, TextDelta):
            self.out.write(event.text)
            self.out.flush()
        elif isinstance(event, ToolRunStarted) and self.show_tools:
            self.lines.write(f"\n⚙ {visible(event.call.name, lines=False)} "
                             f"{visible(event.call.arguments[:120], lines=False)}\n")
        elif isinstance(event, ToolRunFinished) and self.show_tools:
            mark = "✓" if not event.result.is_error else "✗"
            self.lines.write(f"  {mark} {event.result.status}\n")
        elif isinstance(event, LimitReached) and not event.will_ask:
            self.err.write(f"assista: stopped after {event.rounds} tool rounds (limit)\n")
        elif isinstance(event, ImageEvent):  # no picture on a terminal: say where it is
            self.err.write("assista: the answer has an image; it is kept with the chat "
                           "(assista image --out FILE.png writes images to files)\n")
        elif isinstance(event, ErrorEvent):
            pass  # reported once, at the end, as the run's error

    def _progress(self, event: ToolProgress) -> None:
        """An MCP server's progress notification: a JSON event, or a line on a TTY."""
        if self.as_json:
            self.out.write(json.dumps({
                "type": "tool_progress", "call_id": event.call_id, "name": event.name,
                "progress": event.done, "total": event.total, "message": event.text,
            }, ensure_ascii=False) + "\n")
            self.out.flush()
        elif self.show_tools:
            share = (f" ({event.done / event.total:.0%})"
                     if event.done is not None and event.total else "")
            self.lines.write(f"  … {visible(event.text, lines=False)}{share}\n")


async def confirm_on_tty(rounds: int) -> bool:
    if not sys.stdin.isatty():
        return False
    answer = await asyncio.to_thread(
        input, f"\nThe agent has run {rounds} tool rounds. Continue? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def read_prompt(prompt: str) -> str:
    """The prompt as text; bytes that are not UTF-8 (argv keeps them as surrogates,
    stdin as they came) become U+FFFD, with a warning, instead of failing later."""
    raw = (sys.stdin.buffer.read() if prompt == "-"
           else prompt.encode("utf-8", "surrogateescape"))
    text = raw.decode("utf-8", "replace")
    if "\ufffd" in text and "\ufffd".encode() not in raw:
        print("assista: warning: the prompt is not valid UTF-8; the invalid bytes were "
              "replaced with \ufffd", file=sys.stderr)
    return text


def mcp_config_files(args: argparse.Namespace) -> list[McpServerConfig]:
    configs: list[McpServerConfig] = []
    for path in getattr(args, "mcp_config", None) or []:
        configs += load_mcp_config(path)
    return configs


async def start_mcp_servers(service: ChatService, extra: list[McpServerConfig],
                            err: TextIO) -> None:
    """The configured MCP servers plus those of --mcp-config files."""
    if not extra and not service.settings.current.mcp_servers:
        return
    service.tools.browser = TerminalBrowser(err)
    results = await service.tools.start_mcp(extra)
    await sign_in_where_needed(service.tools, err)
    manager = service.tools.mcp
    for name in results:
        connection = manager.get(name) if manager is not None else None
        if connection is not None and connection.state != "running":
            await connection.stop()
            reason = (sign_in_needed_text(name) if connection.needs_sign_in else
                      f"MCP server {name!r} is not available: "
                      f"{connection.last_error or connection.state}")
            err.write(f"assista: warning: {visible(reason)}\n")


def terminal_approver(args: argparse.Namespace) -> Approver | None:
    if getattr(args, "approve_all", False):
        return allow_all
    if sys.stdin.isatty():
        return TerminalApprover(sys.stderr)
    return None  # nobody to ask: calls that need approval are denied


def turn_overrides(ctx: AppContext, args: argparse.Namespace, service: ChatService,
                   config: ProviderConfig, mcp_files: list[McpServerConfig]) -> TurnOverrides:
    """What the command line sets for this turn; the chat's own prompt, assistant,
    custom instructions, workspace and tool switches apply to everything else."""
    allowed = [n.strip() for n in getattr(args, "allow", None) or [] if n.strip()]
    tools = None
    if args.tools is not None:
        tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    extra = service.tools.mcp_tools(c.name for c in mcp_files) + allowed
    knowledge = [base.name for base in _knowledge_bases(ctx, args)]
    return TurnOverrides(config=config, model=config.model, system=args.system,
                         tools=tools, extra_tools=extra, workspace=args.workspace,
                         policies=dict.fromkeys(allowed, "allow"), knowledge=knowledge,
                         web_search=bool(getattr(args, "web", False)),
                         memory=not (args.no_memory or args.temporary))


def _knowledge_bases(ctx: AppContext, args: argparse.Namespace) -> list[KnowledgeBase]:
    """The --knowledge bases (each must exist), re-indexed where files changed."""
    if not args.knowledge:
        return []
    from desktop.cli.knowledge_cmd import index_base
    from desktop.knowledge.store import KnowledgeStore

    store = KnowledgeStore(ctx.db, proxy=ctx.proxy)
    bases = [store.get(name) for name in args.knowledge]
    for base in bases if not ctx.db.read_only else ():  # else: as indexed
        index_base(store, base, quiet=True)
    return bases


def attached_files(ctx: AppContext, args: argparse.Namespace, config: ProviderConfig,
                    err: TextIO) -> list[Part]:
    """The --attach files as message parts, cut to the model's budget (said on stderr)."""
    from pathlib import Path

    from desktop.core.attachments import attachment_budget, attachment_note, load_attachment

    budget = attachment_budget(ctx.providers.capabilities(config, config.model).context_window)
    parts = []
    for name in args.attach:
        part = load_attachment(Path(name).expanduser(), max_chars=budget)
        if (note := attachment_note(part)) is not None:
            err.write(f"assista: note: {note}\n")
        parts.append(part)
    return parts


async def _ask(ctx: AppContext, args: argparse.Namespace,
               printer: _Printer) -> tuple[Message, RunResult | None]:
    prompt = read_prompt(args.prompt)
    if not prompt.strip() and not wants_mcp_inputs(args) and not args.attach:
        raise ConfigError("the prompt is empty")
    service = ChatService(ctx)
    project = ctx.projects.resolve(args.project) if getattr(args, "project", None) else None
    chat: ChatRef = NewChat(workspace=args.workspace,
                            project_id=project.id if project is not None else None)
    if args.session and not args.no_save:
        info = ctx.sessions.get_session(args.session)
        if info is None:
            raise ConfigError(f"no session with id {args.session!r}")
        if project is not None and info.project_id != project.id:
            raise ConfigError(f"the session {args.session} is not in the project "
                              f"{project.name!r}")
        chat = args.session
    config = resolve_provider(ctx, args, service, chat)
    mcp_files = mcp_config_files(args)
    # Servers that ask are answered on the terminal (declined without one); sampling
    # runs on this run's provider and model.
    from desktop.chat.sampling import ChatSampler

    asking = printer.lines.asking(input)  # tool lines wait while a question is open
    sampler = ChatSampler(service, TerminalSamplingApprover(sys.stderr, asking))
    service.tools.elicitor = TerminalElicitor(sys.stderr, asking)
    service.tools.sampler = sampler
    await start_mcp_servers(service, mcp_files, printer.err)
    try:
        prompt, attachments = await mcp_turn(service.tools, args, prompt)
        attachments = [*attachments, *attached_files(ctx, args, config, printer.err)]
        turn = service.start(chat, prompt, attachments,
                             overrides=turn_overrides(ctx, args, service, config, mcp_files),
                             approver=terminal_approver(args), confirm=confirm_on_tty,
                             save=not args.no_save,
                             research=research_limits(args, ctx.settings.current))
        sampler.use_model(turn.session_id, config, config.model)
        service.observe(turn.session_id, printer)
        assert turn.task is not None
        await turn.task
        if turn.failure is not None:
            raise AssistaError(turn.failure)
        return turn.base[-1], turn.result
    finally:
        await service.shutdown()


def ask_command(args: argparse.Namespace) -> int:
    out, err = sys.stdout, sys.stderr
    printer = _Printer(out, err, args.json)
    try:
        ctx = open_cli_context(args, writes=not args.no_save)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        user_message, result = run_interruptible(_ask(ctx, args, printer))
        if result is None:
            raise KeyboardInterrupt
    except KeyboardInterrupt as interrupt:  # Ctrl+C, SIGTERM, SIGHUP: the answer is saved
        return fail("interrupted", exit_status(interrupt))
    except AssistaError as exc:
        log.info("ask failed: %s", exc)
        return fail(str(exc))
    except Exception as exc:  # an unexpected bug: one line for the user, details in the log
        log.exception("ask crashed")
        return fail(f"unexpected error: {exc} (details in {ctx.paths.logs_dir})")
    finally:
        ctx.close()
    if printer.closed:
        return output_closed()
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
