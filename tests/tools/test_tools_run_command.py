"""run_command: real subprocesses; output streamed and capped; process groups killed."""

from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.tools import ToolExecutor, Workspace, builtin_registry
from desktop.tools.approval import ToolProgress, allow_all

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell commands")


class Progress:
    """Collects progress events; lets a test wait for a piece of output."""

    def __init__(self) -> None:
        self.events: list[ToolProgress] = []
        self.changed = asyncio.Event()

    def __call__(self, event: ToolProgress) -> None:
        self.events.append(event)
        self.changed.set()

    def output(self, stream: str | None = None) -> str:
        return "".join(
            e.text for e in self.events if e.kind == "output" and stream in (None, e.stream)
        )

    async def wait_for(self, text: str) -> str:
        async with asyncio.timeout(20):
            while text not in self.output():
                self.changed.clear()
                await self.changed.wait()
        return self.output()


def make_executor(root: Path, progress: Progress | None = None, **kwargs: Any) -> ToolExecutor:
    return ToolExecutor(
        builtin_registry(), Workspace(root), approver=allow_all, on_progress=progress, **kwargs
    )


def call(command: str, call_id: str = "cmd", **extra: Any) -> ToolCallPart:
    return ToolCallPart(
        id=call_id, name="run_command", arguments=json.dumps({"command": command, **extra})
    )


def payload(part: ToolResultPart) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(part.content)
    return data


def wait_dead(pid: int, timeout_s: float = 10.0) -> bool:
    """Block until ``pid`` has exited (pidfd readiness, no polling sleeps)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        ready, _, _ = select.select([fd], [], [], timeout_s)
        return bool(ready)
    finally:
        os.close(fd)


async def test_output_exit_code_and_cwd(root: Path) -> None:
    (root / "sub").mkdir()
    progress = Progress()
    executor = make_executor(root, progress)
    part = await executor.run(call("printf 'out\\n'; printf 'err\\n' >&2; pwd; exit 3", cwd="sub"))
    result = payload(part)["error"]  # a non-zero exit is a failed call, with all its output
    assert part.status == "failed" and part.is_error
    assert result["code"] == "exit_status" and "exited with code 3" in result["message"]
    assert result["exit_code"] == 3
    assert result["stdout"] == f"out\n{(root / 'sub').resolve()}\n"
    assert result["stderr"] == "err\n"
    assert progress.output("stdout") == result["stdout"]
    assert progress.output("stderr") == "err\n"
    statuses = [e.text for e in progress.events if e.kind == "status"]
    assert statuses == ["awaiting_approval", "running"]


async def test_output_is_streamed_before_the_command_ends(root: Path) -> None:
    fifo = root / "gate"
    os.mkfifo(fifo)
    progress = Progress()
    executor = make_executor(root, progress)
    task = asyncio.create_task(executor.run(call("echo first; read x < gate; echo second")))
    await progress.wait_for("first\n")
    assert not task.done()  # the command is still blocked on the FIFO
    await asyncio.to_thread(fifo.write_text, "go\n")
    result = payload(await task)["result"]
    assert result["stdout"] == "first\nsecond\n"


async def test_timeout_kills_the_process_group(root: Path) -> None:
    executor = make_executor(root)
    part = await executor.run(call("sleep 1000 & echo $!; wait", timeout_s=0.5))
    error = payload(part)["error"]
    assert part.status == "failed" and error["code"] == "timeout"
    assert "0.5 seconds" in error["message"]
    child = int(error["stdout"].strip())
    assert wait_dead(child), "the background child survived the timeout"


async def test_cancel_one_call_kills_its_group(root: Path) -> None:
    progress = Progress()
    executor = make_executor(root, progress)
    task = asyncio.create_task(executor.run(call("sleep 1000 & echo $!; wait", "c1")))
    child = int((await progress.wait_for("\n")).strip())
    assert executor.in_flight() == ["c1"]
    assert executor.cancel("c1") is True
    part = await task
    assert part.status == "cancelled" and payload(part)["error"]["code"] == "cancelled"
    assert wait_dead(child)
    assert executor.cancel("c1") is False


async def test_stop_cancels_and_kills(root: Path) -> None:
    progress = Progress()
    executor = make_executor(root, progress)
    task = asyncio.create_task(executor.run(call("sleep 1000 & echo $!; wait")))
    child = int((await progress.wait_for("\n")).strip())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_dead(child)


async def test_executor_timeout_also_kills(root: Path) -> None:
    progress = Progress()
    executor = make_executor(root, progress)
    # the tool's own limit is the executor's default timeout
    executor.timeout_s = 0.5
    part = await executor.run(call("sleep 1000 & echo $!; wait"))
    assert payload(part)["error"]["code"] == "timeout"
    assert wait_dead(int(progress.output().strip()))


async def test_huge_output_is_capped(root: Path) -> None:
    executor = make_executor(root, max_result_chars=20_000)
    part = await executor.run(call("yes 0123456789 | head -c 2000000; echo; echo END"))
    result = payload(part)["result"]
    assert len(part.content) <= 20_000
    assert result["truncated"] is True
    assert "characters omitted" in result["stdout"]
    assert result["stdout"].rstrip().endswith("END")
    assert result["stdout"].startswith("0123456789\n")


async def test_binary_output_is_replaced_not_fatal(root: Path) -> None:
    part = await make_executor(root).run(call("printf '\\377\\376ok\\n'"))
    assert payload(part)["result"]["stdout"].endswith("ok\n")


async def test_cwd_escape_is_refused(root: Path) -> None:
    os.symlink(root.parent / "outside", root / "out")
    executor = make_executor(root)
    for cwd in ("..", "/", "out"):
        part = await executor.run(call("pwd", cwd=cwd))
        assert payload(part)["error"]["code"] == "path_outside_workspace", cwd


async def test_without_approval_nothing_runs(root: Path) -> None:
    executor = ToolExecutor(builtin_registry(), Workspace(root))  # nobody to ask
    part = await executor.run(call("touch ran.txt"))
    assert part.status == "denied"
    assert not (root / "ran.txt").exists()


def alive(pid: int) -> bool:
    """Whether ``pid`` still exists as a process that is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False


linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="subreaper: Linux")

# Background children in every way a command can leave them: nohup + setsid, a double
# fork into a new session, and 100 plain background sleeps holding the output pipe.
LEAVE_CHILDREN = (
    "nohup setsid sleep 301 >/dev/null 2>&1 & echo $!; "
    "(setsid sh -c 'sleep 302 & echo $! > inner.pid' &); "
    "while [ ! -s inner.pid ]; do :; done; cat inner.pid; "
    "for i in $(seq 100); do sleep 303 & echo $!; done"
)


@linux_only
async def test_every_process_a_command_started_ends_with_the_call(root: Path) -> None:
    """``nohup setsid sleep 301 &`` and 100 background sleeps outlived the call (and
    the app); now the call ends them all, including those that called setsid."""
    part = await make_executor(root).run(call(LEAVE_CHILDREN, timeout_s=60))
    result = payload(part)["result"]
    assert part.status == "succeeded", part.content
    pids = [int(line) for line in result["stdout"].split()]
    assert len(pids) == 102
    survivors = [pid for pid in pids if alive(pid)]
    assert survivors == []


@linux_only
async def test_a_cancelled_call_ends_the_processes_that_left_its_group(root: Path) -> None:
    progress = Progress()
    executor = make_executor(root, progress)
    task = asyncio.create_task(executor.run(call(
        "setsid sh -c 'echo $$; exec sleep 304' & sleep 1000", "c1")))  # (echo: once out)
    child = int((await progress.wait_for("\n")).strip())
    assert alive(child)
    assert executor.cancel("c1")
    part = await task
    assert part.status == "cancelled"
    assert not alive(child)


@linux_only
def test_when_the_app_goes_the_supervisor_ends_the_command(root: Path) -> None:
    """The app is gone (its end of the supervisor's input closes): nothing survives."""
    from desktop.tools.builtins.run_command import supervisor_argv

    supervisor = subprocess.Popen(
        [*supervisor_argv(), "2", "setsid sh -c 'echo $$; exec sleep 305' & sleep 1000"], cwd=root,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
    assert supervisor.stdin is not None and supervisor.stdout is not None
    child = int(supervisor.stdout.readline())
    assert alive(child)
    supervisor.stdin.close()  # what the kernel does when the app exits or crashes
    assert supervisor.wait(timeout=30) != 0
    assert not alive(child)


@linux_only
def test_a_frozen_build_runs_the_supervisor_through_its_entry_point(root: Path) -> None:
    """(A frozen build has no interpreter to run the module's file with.)"""
    code = ("import sys; from desktop.__main__ import main; "
            "sys.exit(main(['--assista-run-command', '1', 'echo from the shell; exit 3']))")
    # Standard input is a pipe the app never writes and keeps open, as the app's own:
    # at end of file (the test run's /dev/null in CI) the supervisor ends the command.
    supervisor = subprocess.Popen(
        [sys.executable, "-c", code], cwd=root, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
    assert supervisor.stdin is not None and supervisor.stdout is not None
    try:
        out = supervisor.stdout.read()  # (end of file: the supervisor and its shell ended)
        code_seen = supervisor.wait(timeout=60)
    finally:
        supervisor.stdin.close()
        supervisor.kill()
        supervisor.wait()
    assert supervisor.stderr is not None
    assert (code_seen, out) == (3, "from the shell\n"), supervisor.stderr.read()
