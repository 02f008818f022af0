"""run_command: run a shell command in the workspace, stream its output, cap and time it.

The command runs through the platform shell (``/bin/sh -c`` on POSIX) with the
workspace as its working folder, no standard input, and in a new process group
(session); on Linux under :mod:`desktop.tools.command_supervisor`, which ends every
process the command started (even those that left the group) when the call ends. It
gets a scrubbed environment: no API keys, tokens or passwords, only the
variables a shell needs and those the user names (see :mod:`._cmdenv`). Its stdout
and stderr are streamed to the executor's progress sink as they arrive (the sidebar
shows them live) and kept, capped, for the result. On
timeout, on cancellation (Stop, or cancelling the call) and on any error, the
whole process group is terminated (SIGTERM, then SIGKILL after a short grace).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import copy
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import msgspec

from desktop.core.errors import ToolError
from desktop.tools import command_supervisor
from desktop.tools.approval import ApprovalPreview
from desktop.tools.builtins._cmdenv import command_environment
from desktop.tools.errors import ToolFailure
from desktop.tools.registry import Tool, ToolContext
from desktop.tools.sandbox import Confinement, confinement

NAME = "run_command"
TITLE = "Run command"  # shown to people (translated in the window)
MAX_TIMEOUT_S = 1800
KILL_GRACE_S = 2.0
_READ_CHUNK = 4096

DESCRIPTION = (
    "Run a shell command in the workspace folder and return its exit code, stdout and "
    "stderr (a non-zero exit code is reported as an error, with the same fields). The "
    "command gets no input and is stopped after timeout_s seconds (with every process it "
    "started). Long output is shortened in the middle. Use it for builds, "
    "tests, git and similar; prefer the file tools for reading and editing files."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "minLength": 1, "description": "The shell command line."},
        "cwd": {
            "type": "string",
            "description": "Folder to run in, relative to the workspace root. Default: the root.",
        },
        "network": {
            "type": "boolean",
            "description": "True when the command needs the network (downloads, package "
                           "installs, web APIs). Commands run without network unless the "
                           "user allows it: then the user is asked to allow it for this "
                           "chat's commands. Default: false.",
        },
        "timeout_s": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": MAX_TIMEOUT_S,
            "description": "Seconds before the command is killed (default: the tool timeout).",
        },
    },
    "required": ["command"],
    "additionalProperties": False,
}


def run_command_tool() -> Tool:
    return Tool(
        deferred_check=True,  # a constant schema (the tests check it)
        name=NAME, title=TITLE,
        needs_workspace=True, scope="command", changes_workspace=True,
        network_argument="network",
        description=DESCRIPTION,
        parameters=copy.deepcopy(PARAMETERS),
        handler=_handle,
        read_only=False,
        preview=_preview,
        timeout_s=MAX_TIMEOUT_S + 4 * KILL_GRACE_S,  # the handler enforces the real limit
    )


def _confinement(ctx: ToolContext, cwd: Path) -> Confinement:
    workspace = ctx.require_workspace()
    return confinement(workspace.root, cwd, enabled=ctx.trust.command_sandbox,
                       network=ctx.trust.command_network, hidden=ctx.trust.hidden_paths,
                       shown=ctx.trust.shown_paths, chat_network=ctx.trust.command_network_chat)


async def _preview(args: dict[str, Any], ctx: ToolContext) -> ApprovalPreview:
    workspace = ctx.require_workspace()
    where = workspace.resolve_dir(args.get("cwd") or ".")
    folder = workspace.relative(where)
    # (bubblewrap is tried once per process, on a thread: not on the event loop)
    sandbox = (await asyncio.to_thread(_confinement, ctx, where)).code
    if folder == ".":
        preview = ApprovalPreview.titled("command", args["command"], "run_command")
    else:
        preview = ApprovalPreview.titled("command", args["command"], "run_command_in",
                                         folder=folder)
    return msgspec.structs.replace(preview, confinement=sandbox)


class _Capture:
    """Keeps the first and last parts of a stream's text within ``cap`` characters."""

    def __init__(self, cap: int) -> None:
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head: list[str] = []
        self.head_len = 0
        self.tail = ""
        self.dropped = 0

    def add(self, text: str) -> None:
        if self.head_len < self.head_cap:
            take = text[: self.head_cap - self.head_len]
            self.head.append(take)
            self.head_len += len(take)
            text = text[len(take) :]
        if not text:
            return
        joined = self.tail + text
        if len(joined) > self.tail_cap:
            self.dropped += len(joined) - self.tail_cap
            joined = joined[-self.tail_cap :]
        self.tail = joined

    def text(self) -> str:
        head = "".join(self.head)
        if self.dropped:
            return f"{head}\n… [{self.dropped} characters omitted] …\n{self.tail}"
        return head + self.tail


async def _pump(
    stream: asyncio.StreamReader, name: str, capture: _Capture, ctx: ToolContext
) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    while chunk := await stream.read(_READ_CHUNK):
        text = decoder.decode(chunk)
        capture.add(text)
        ctx.output(text, name)
    tail = decoder.decode(b"", final=True)
    capture.add(tail)
    ctx.output(tail, name)


def _supervised() -> bool:
    """Whether commands run under :mod:`desktop.tools.command_supervisor` (Linux)."""
    return sys.platform.startswith("linux") and bool(sys.executable)


def supervisor_argv() -> list[str]:
    """How to start the supervisor: this build's executable with its flag when frozen,
    else the interpreter on the module's file (isolated, no site: it needs neither)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, command_supervisor.FLAG]
    return [sys.executable, "-I", "-S", command_supervisor.__file__]


async def _spawn(command: str, cwd: str, env: dict[str, str]) -> asyncio.subprocess.Process:
    kwargs: dict[str, Any] = {}
    if sys.platform == "win32":  # pragma: no cover - not exercised on POSIX CI
        kwargs["creationflags"] = 0x00000200  # CREATE_NEW_PROCESS_GROUP
    else:
        kwargs["start_new_session"] = True
    try:
        if _supervised():  # it ends every process the command starts (see its module)
            return await asyncio.create_subprocess_exec(
                *supervisor_argv(), str(KILL_GRACE_S), command,
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.PIPE,  # (never written: its end tells the app left)
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                **kwargs,
            )
        return await asyncio.create_subprocess_shell(
            command,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            **kwargs,
        )
    except OSError as exc:
        raise ToolError(
            f"Could not start the command: {exc.strerror or exc}.", code="spawn_failed"
        ) from None


def _signal_group(process: asyncio.subprocess.Process, sig: int) -> None:
    if sys.platform == "win32":  # pragma: no cover
        with contextlib.suppress(ProcessLookupError, OSError):
            process.kill()
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)  # the pid is the group id (new session)


async def kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the process group, then SIGKILL it if the leader has not exited (the
    supervisor, when there is one, gets the time to end what left the group first)."""
    _signal_group(process, signal.SIGTERM)
    grace = 2 * KILL_GRACE_S + 1.0 if _supervised() else KILL_GRACE_S
    try:
        async with asyncio.timeout(grace):
            await process.wait()
    except TimeoutError:
        pass
    _signal_group(process, signal.SIGKILL)  # also any children that ignored SIGTERM
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(KILL_GRACE_S):
            await process.wait()


async def _handle(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    workspace = ctx.require_workspace()
    where = workspace.resolve_dir(args.get("cwd") or ".")
    cwd = str(where)
    sandbox = await asyncio.to_thread(_confinement, ctx, where)
    limit = float(args.get("timeout_s") or ctx.default_timeout_s)
    cap = max(ctx.result_budget // 2 - 500, 2_000)
    out, err = _Capture(cap), _Capture(cap)
    started = time.monotonic()
    env = command_environment(os.environ, ctx.trust.command_env)
    spawning = asyncio.ensure_future(_spawn(sandbox.shell_line(args["command"]), cwd, env))
    try:
        process = await asyncio.shield(spawning)
    except asyncio.CancelledError:  # stopped while starting: let it start, then kill it
        with contextlib.suppress(Exception):
            await kill_group(await spawning)
        raise
    assert process.stdout is not None and process.stderr is not None
    pumps = asyncio.gather(
        _pump(process.stdout, "stdout", out, ctx), _pump(process.stderr, "stderr", err, ctx)
    )
    timed_out = False
    try:
        try:
            async with asyncio.timeout(limit):
                await asyncio.shield(pumps)
                await process.wait()
        except TimeoutError:
            timed_out = True
    finally:
        if process.returncode is None or timed_out:
            await asyncio.shield(kill_group(process))
        with contextlib.suppress(TimeoutError, Exception):
            async with asyncio.timeout(KILL_GRACE_S):
                await asyncio.shield(pumps)  # the rest of the output, now that it has ended
        if not pumps.done():
            pumps.cancel()
    result: dict[str, Any] = {
        "exit_code": process.returncode,
        "stdout": out.text(),
        "stderr": err.text(),
        "duration_s": round(time.monotonic() - started, 3),
        "sandbox": sandbox.describe(),
        "confinement": sandbox.code,  # (for the tool card, which words it)
    }
    if out.dropped or err.dropped:
        result["truncated"] = True
        result["note"] = "Output was longer than the cap; the middle was left out."
    if timed_out:
        raise ToolFailure(
            f"The command did not finish within {limit:g} seconds; it was stopped "
            "(its whole process group was killed). Output so far is included.",
            code="timeout",
            extra=result,
        )
    if process.returncode != 0:  # a failed call, with everything it printed
        raise ToolFailure(_exit_message(process.returncode), code="exit_status", extra=result)
    return result


def _exit_message(code: int | None) -> str:
    if code is not None and code < 0:
        return f"The command was ended by signal {-code}. Its output is included."
    return f"The command exited with code {code} (a failure). Its output is included."
