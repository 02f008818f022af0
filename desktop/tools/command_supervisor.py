"""The process between the app and a ``run_command`` shell (Linux): it ends everything
the command started.

A process group is not enough to find a command's processes: ``setsid``, ``nohup ... &``
and double forks leave it, and they outlived the call and the app. This small process
makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): every process the
command starts, however it detaches, is its descendant, and becomes its child when its
own parent ends. It runs ``/bin/sh -c COMMAND`` (standard input ``/dev/null``; standard
output and error are its own, the app's pipes) and, when the shell exits, when it gets
SIGTERM/SIGINT/SIGHUP (timeout, Stop) or when its standard input reaches end of file
(the app is gone: it never writes there), it sends SIGTERM to all its descendants, then
SIGKILL after the grace period, reaping until none is left. Then it exits as the shell
did (the same code, or the same signal).

Run as ``python -I -S command_supervisor.py GRACE COMMAND`` (standard library only, no
package import), or from a frozen build as ``assista --assista-run-command GRACE
COMMAND`` (see :mod:`desktop.__main__`).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
FLAG = "--assista-run-command"  # the frozen build's entry for this
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _ppids() -> dict[int, list[int]]:
    """Every process's children, from /proc (zombies left out)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields and fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    return children


def descendants(root: int) -> list[int]:
    """The living processes below ``root``."""
    children = _ppids()
    found: list[int] = []
    todo = list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


class Supervisor:
    def __init__(self, command: str, grace_s: float) -> None:
        self.command = command
        self.grace_s = grace_s
        self.stop = False
        self.shell_status: int | None = None
        self.shell_pid = 0
        self.wake_r, wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        for sig in _STOP_SIGNALS:
            signal.signal(sig, self._on_stop)
        signal.signal(signal.SIGCHLD, lambda _s, _f: None)  # (wakes the select)

    def _on_stop(self, _sig: int, _frame: object) -> None:
        self.stop = True

    def start(self) -> None:
        self.shell_pid = os.posix_spawn(
            "/bin/sh", ["/bin/sh", "-c", self.command], os.environ,
            file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)])

    def _reap(self) -> bool:
        """Collect every child that ended; False once there is no child at all."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if pid == self.shell_pid:
                self.shell_status = status

    def _wait(self, timeout: float | None, watch_input: bool) -> None:
        fds = [self.wake_r] + ([0] if watch_input else [])
        try:
            ready, _, _ = select.select(fds, [], [], timeout)
        except InterruptedError:
            return
        if self.wake_r in ready:
            while True:
                try:
                    if not os.read(self.wake_r, 512):
                        break
                except BlockingIOError:
                    break
        if 0 in ready:
            try:
                data = os.read(0, 4096)
            except OSError:
                data = b""
            if not data:  # end of file: the app is gone
                self.stop = True

    def run(self) -> None:
        self.start()
        while not self.stop:
            self._reap()
            if self.shell_status is not None:
                break
            self._wait(None, watch_input=True)
        self.end_all()

    def end_all(self) -> None:
        """SIGTERM every descendant, SIGKILL what is left after the grace period, and
        reap until no child is left."""
        deadline = time.monotonic() + self.grace_s
        termed: set[int] = set()
        while True:
            has_children = self._reap()
            pids = descendants(os.getpid())
            if not pids and not has_children:
                return
            late = time.monotonic() >= deadline
            for pid in pids:
                if late or pid not in termed:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL if late else signal.SIGTERM)
                    termed.add(pid)
            self._wait(0.02 if late else min(0.05, max(deadline - time.monotonic(), 0.0)),
                       watch_input=False)

    def exit_status(self) -> int:
        status = self.shell_status
        if status is None:
            return 128 + signal.SIGTERM
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:  # end the same way, without a core file
                import resource

                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
                signal.signal(sig, signal.SIG_DFL)
                os.kill(os.getpid(), sig)
            except (OSError, ValueError):
                pass
            return 128 + sig
        return os.waitstatus_to_exitcode(status)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write("usage: command_supervisor GRACE COMMAND\n")
        return 2
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # (without it, processes that leave the tree may outlive the call)
    supervisor = Supervisor(argv[1], float(argv[0]))
    try:
        supervisor.run()
    except BaseException:
        supervisor.grace_s = 0.0
        supervisor.end_all()
        raise
    return supervisor.exit_status()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
