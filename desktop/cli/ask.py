"""``assista ask``: the orchestrator from the command line.

Plain mode writes the answer text to stdout exactly as streamed. ``--json`` writes
one JSON object per event (and then the final messages), one per line. Errors go
to stderr as one line and the exit status is non-zero.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from typing import Any, TextIO

from desktop.app import AppContext
from desktop.cli.commands import fail
from desktop.core.agent_events import AgentEvent, LimitReached, ToolRunFinished, ToolRunStarted
from desktop.core.conversation import auto_title, run_turn
from desktop.core.errors import AssistaError, ConfigError
from desktop.core.events import ErrorEvent, TextDelta, event_to_dict
from desktop.core.messages import Message
from desktop.core.orchestrator import RunResult
from desktop.core.settings import AppSettings, ProviderConfig
from desktop.providers.presets import PRESETS

log = logging.getLogger(__name__)

EXIT_ERROR = 1
EXIT_LIMIT = 3
EXIT_INTERRUPTED = 130


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


async def _ask(ctx: AppContext, args: argparse.Namespace,
               printer: _Printer) -> tuple[Message, RunResult]:
    settings = ctx.load_settings()
    config = resolve_provider(ctx, args, settings)
    workspace = args.workspace or settings.workspace
    if args.tools is not None:
        enabled = [t.strip() for t in args.tools.split(",") if t.strip()]
    else:
        enabled = list(settings.enabled_tools) if workspace else []
    tools = ctx.build_tools(workspace, enabled)
    provider = ctx.build_provider(config)
    orchestrator = ctx.build_orchestrator(provider, tools, settings, _confirm_on_tty)
    prompt = _read_prompt(args.prompt)
    if not prompt.strip():
        raise ConfigError("the prompt is empty")
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
