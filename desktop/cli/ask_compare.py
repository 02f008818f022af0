"""``assista ask --compare MODEL,MODEL "prompt"``: one question to 2–4 models at once.

Each item is a model on the provider chosen by ``--provider`` / ``--base-url`` (else
the chat's), or ``PROVIDER:MODEL`` for a configured provider (name or id; an item
whose part before the first ``:`` is not a configured provider is a model id, so
``llama3:8b`` stays a model). The answers stream concurrently; plain output shows
them one after another, each under a header line ``== ITEM ==`` (the first streams
live, the next one's text is held until the one before it is done, so answers never
interleave). ``--json`` writes every event as it comes, tagged with ``"model"`` (the
item) and ``"column"`` (its place, from 0), then one ``"messages"`` line per model.
All answers are saved as sibling answers to one user message, the first one active.
The exit status is non-zero only when every model failed; the failed ones are
named on stderr either way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from functools import partial
from typing import TextIO

from desktop.app import AppContext
from desktop.chat.compare_run import (
    MAX_MODELS,
    MIN_MODELS,
    CompareRun,
    CompareTarget,
    PerModel,
)
from desktop.chat.events import ChatEvent, ChatObserver, TurnEnded
from desktop.chat.profile import ChatRef, NewChat
from desktop.chat.service import ChatService
from desktop.cli.ask import (
    EXIT_INTERRUPTED,
    NOT_PRINTED,
    attached_files,
    confirm_on_tty,
    mcp_config_files,
    read_prompt,
    resolve_provider,
    start_mcp_servers,
    terminal_approver,
    turn_overrides,
)
from desktop.cli.context import open_cli_context
from desktop.cli.failure import fail, output_closed
from desktop.cli.interrupt import exit_status, run_interruptible
from desktop.cli.mcp_inputs import mcp_turn, wants_mcp_inputs
from desktop.core.agent_events import ToolRunFinished, ToolRunStarted
from desktop.core.errors import AssistaError, ConfigError
from desktop.core.events import TextDelta, event_to_dict
from desktop.core.terminal_text import visible
from desktop.tools.approval import ApprovalDecision, ApprovalRequest, Approver, allow_all

log = logging.getLogger(__name__)


def header(label: str) -> str:
    """The line above each model's answer in plain output."""
    return f"== {label} =="


def compare_targets(ctx: AppContext, args: argparse.Namespace, service: ChatService,
                    chat: ChatRef) -> list[CompareTarget]:
    if args.model:
        raise ConfigError("--model and --compare do not go together: list the models in "
                          "--compare")
    items = [item.strip() for item in args.compare.split(",") if item.strip()]
    if not MIN_MODELS <= len(items) <= MAX_MODELS:
        raise ConfigError(f"--compare takes {MIN_MODELS} to {MAX_MODELS} models, separated "
                          f"by commas ({len(items)} given)")
    targets = []
    for item in items:
        name, colon, model = item.partition(":")
        config = ctx.providers.find(name) if colon and model.strip() else None
        if config is not None:
            model = model.strip()
            config = config.model_copy(update={"model": model})
        else:  # a model on the --provider / --base-url (or the chat's) provider
            model = item
            config = resolve_provider(ctx, argparse.Namespace(**{**vars(args), "model": item}),
                                      service, chat)
        targets.append(CompareTarget(config, model, label=item))
    return targets


def labelled(approver: Approver | None, err: TextIO) -> Approver | PerModel | None:
    """``approver`` (the terminal's) for each model, saying first which model asks,
    one question at a time: the models' tools run at once."""
    if approver is None or approver is allow_all:
        return approver
    lock = asyncio.Lock()
    ask = approver

    def approver_for(target: CompareTarget) -> Approver:
        async def labelled_approver(request: ApprovalRequest) -> ApprovalDecision:
            async with lock:
                err.write(f"\n[{target.name}] asks to run "
                          f"{visible(request.tool, lines=False)}:\n")
                err.flush()
                return await ask(request)

        return labelled_approver

    return PerModel(approver_for)


class ComparePrinter:
    """Prints the columns' events: JSON lines tagged with the model, or the answers
    one after another under their headers (see the module's docs)."""

    def __init__(self, out: TextIO, err: TextIO, as_json: bool) -> None:
        self.out, self.err, self.as_json = out, err, as_json
        self.show_tools = not as_json and err.isatty()
        self.labels: list[str] = []
        self.run: CompareRun | None = None
        self._held: list[list[str]] = []
        self._ended: list[bool] = []
        self._current = 0
        self.closed = False  # the output's reader went away

    def start(self, run: CompareRun) -> None:
        self.run = run
        self.labels = labels = [c.target.name for c in run.columns]
        self._held = [[] for _ in labels]
        self._ended = [False] * len(labels)
        if not self.as_json:
            self._write(header(labels[0]) + "\n")

    def observer(self, index: int) -> ChatObserver:
        return partial(self._event, index)

    def _write(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except BrokenPipeError:  # the reader went away (| head): the answers go on, saved
            self.closed = True

    def _event(self, index: int, event: ChatEvent) -> None:
        if isinstance(event, TurnEnded):
            self._column_ended(index)
        if isinstance(event, NOT_PRINTED):
            return
        if self.as_json:
            # (the tag wins over an event's own "model": the item as the user wrote it)
            line = {**event_to_dict(event), "model": self.labels[index], "column": index}
            self._write(json.dumps(line, ensure_ascii=False) + "\n")
        elif isinstance(event, TextDelta):
            if index == self._current:
                self._write(event.text)
            else:
                self._held[index].append(event.text)
        elif isinstance(event, ToolRunStarted) and self.show_tools:
            self.err.write(f"\n[{self.labels[index]}] ⚙ {visible(event.call.name, lines=False)} "
                           f"{visible(event.call.arguments[:120], lines=False)}\n")
        elif isinstance(event, ToolRunFinished) and self.show_tools:
            mark = "✓" if not event.result.is_error else "✗"
            self.err.write(f"[{self.labels[index]}]   {mark} {event.result.status}\n")

    def _column_ended(self, index: int) -> None:
        self._ended[index] = True
        if self.as_json:
            return
        while self._current < len(self.labels) and self._ended[self._current]:
            self._finish(self._current)
            self._current += 1
            if self._current < len(self.labels):
                held, self._held[self._current] = self._held[self._current], []
                self._write("\n" + header(self.labels[self._current]) + "\n" + "".join(held))

    def _finish(self, index: int) -> None:
        self._write("\n")
        column = self.run.columns[index] if self.run is not None else None
        if column is not None and column.status == "failed":
            self.err.write(f"assista: {self.labels[index]} failed: {visible(column.error or '')}\n")
            self.err.flush()


async def _compare(ctx: AppContext, args: argparse.Namespace,
                   printer: ComparePrinter) -> CompareRun:
    prompt = read_prompt(args.prompt)
    if not prompt.strip() and not wants_mcp_inputs(args) and not args.attach:
        raise ConfigError("the prompt is empty")
    service = ChatService(ctx)
    chat: ChatRef = NewChat(workspace=args.workspace)
    if args.session and not args.no_save:
        if ctx.sessions.get_session(args.session) is None:
            raise ConfigError(f"no session with id {args.session!r}")
        chat = args.session
    targets = compare_targets(ctx, args, service, chat)
    mcp_files = mcp_config_files(args)
    await start_mcp_servers(service, mcp_files, printer.err)
    try:
        prompt, attachments = await mcp_turn(service.tools, args, prompt)
        attachments = [*attachments, *attached_files(ctx, args, targets[0].config,
                                                      printer.err)]
        run = service.compare.start(
            chat, prompt, targets, attachments,
            overrides=turn_overrides(ctx, args, service, targets[0].config, mcp_files),
            approver=labelled(terminal_approver(args), printer.err), confirm=confirm_on_tty,
            save=not args.no_save)
        printer.start(run)
        for column in run.columns:
            column.observe(printer.observer(column.index))
        await run.wait()
        return run
    finally:
        await service.shutdown()


def compare_command(args: argparse.Namespace) -> int:
    out, err = sys.stdout, sys.stderr
    printer = ComparePrinter(out, err, args.json)
    try:
        ctx = open_cli_context(args, writes=not args.no_save)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        run = run_interruptible(_compare(ctx, args, printer))
    except KeyboardInterrupt as interrupt:  # Ctrl+C, SIGTERM, SIGHUP: the answer is saved
        return fail("interrupted", exit_status(interrupt))
    except AssistaError as exc:
        log.info("ask --compare failed: %s", exc)
        return fail(str(exc))
    except Exception as exc:  # an unexpected bug: one line for the user, details in the log
        log.exception("ask --compare crashed")
        return fail(f"unexpected error: {exc} (details in {ctx.paths.logs_dir})")
    finally:
        ctx.close()
    if printer.closed:
        return output_closed()
    if args.json:
        for column in run.columns:
            line = {"type": "messages", "model": column.target.name, "column": column.index,
                    "status": column.status, "error": column.error,
                    "messages": [m.model_dump(mode="json")
                                 for m in [run.question, *column.answer]]}
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
        out.flush()
    failed = [c.target.name for c in run.columns if c.status == "failed"]
    if len(failed) == len(run.columns):
        return fail(f"every model failed: {', '.join(failed)}")
    if failed:
        err.write(f"assista: warning: {len(failed)} of {len(run.columns)} models failed: "
                  f"{', '.join(failed)}\n")
    if all(c.status == "stopped" for c in run.columns):
        return fail("interrupted", EXIT_INTERRUPTED)
    return 0
