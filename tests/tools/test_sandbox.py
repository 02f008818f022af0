"""run_command in bubblewrap (real ``bwrap``, installed by ``packaging/dev.py test``): a
command cannot reach the network or write outside the workspace, can write inside it,
never sees the app's data folder; the approval and the result say how it ran."""

from __future__ import annotations

import asyncio
import shutil
import sys
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from desktop.tools import ToolExecutor, Workspace, builtin_registry
from desktop.tools.approval import ApprovalPreview, ApprovalRequest, allow_all
from desktop.tools.registry import ToolContext
from desktop.tools.sandbox import bwrap_problem, confinement
from desktop.tools.trust import ToolTrust
from tests.support import served
from tests.tools.test_tools_run_command import call, payload

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="bubblewrap is Linux's")

REPO = Path(__file__).resolve().parents[2]
#: A sandboxed command has its own empty /tmp, /var/tmp and /dev/shm: what the tests look
#: at from inside must live elsewhere (a clone of the project in /tmp is invisible there).
PRIVATE = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))


def _outside_private(path: Path) -> bool:
    """Whether ``path`` (as written, and where its links lead) is outside those."""
    return not any(seen == p or p in seen.parents
                   for seen in (path.absolute(), path.resolve()) for p in PRIVATE)


#: The Python the commands run: this one, or the system's when this one is in /tmp.
PYTHON = sys.executable if _outside_private(Path(sys.executable)) else \
    (shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or sys.executable)


@pytest.fixture(autouse=True)
def _bubblewrap() -> None:
    if bwrap_problem() is not None:  # .ci/run installs it: a failure there, not a skip
        pytest.fail(f"no sandbox on this machine: {bwrap_problem()}")


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def web() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = served.serve(server)
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    served.stop(server, thread)


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the workspace and outside /tmp (a sandbox's /tmp is its own)."""
    base = REPO / "build" if _outside_private(REPO) else Path.home() / ".cache"
    folder = base / f"assista-sandbox-outside-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def run(root: Path, command: str, trust: ToolTrust) -> dict[str, Any]:
    executor = ToolExecutor(builtin_registry(), Workspace(root), approver=allow_all,
                            trust=trust)
    data = payload(asyncio.run(executor.run(call(command))))
    found: dict[str, Any] = data.get("result") or data["error"]  # (non-zero exit: a failure)
    return found


def fetch(url: str) -> str:
    return f"{PYTHON} -I -c \"import urllib.request as u; " \
           f"print(u.urlopen('{url}', timeout=10).read().decode())\""


def test_a_sandboxed_command_reaches_no_network_not_even_this_computer(
        root: Path, web: str) -> None:
    closed = run(root, fetch(web), ToolTrust())
    assert closed["exit_code"] != 0 and "hello" not in closed["stdout"]
    assert closed["sandbox"].startswith("sandboxed: no network")
    opened = run(root, fetch(web), ToolTrust(command_network=True))
    assert (opened["exit_code"], opened["stdout"]) == (0, "hello\n")
    assert opened["sandbox"].startswith("sandboxed: network allowed")


def test_a_sandboxed_command_writes_inside_the_workspace_only(root: Path, outside: Path,
                                                              ) -> None:
    (outside / "kept.txt").write_text("mine")
    done = run(root, f"echo made > made.txt; mkdir -p sub && echo deep > sub/d.txt; "
                     f"echo evil > {outside}/new.txt; echo evil > {outside}/kept.txt; "
                     f"rm -f {outside}/kept.txt; echo private > /tmp/scratch.txt && "
                     f"cat /tmp/scratch.txt", ToolTrust())
    assert (root / "made.txt").read_text() == "made\n"
    assert (root / "sub" / "d.txt").read_text() == "deep\n"
    assert not (outside / "new.txt").exists()
    assert (outside / "kept.txt").read_text() == "mine"
    assert "Read-only file system" in done["stderr"]
    assert "private" in done["stdout"]  # its own /tmp works, and is not the real one
    assert not Path("/tmp/scratch.txt").exists() or \
        Path("/tmp/scratch.txt").read_text() != "private\n"


def test_a_sandboxed_command_never_sees_the_apps_data_folder(root: Path, outside: Path,
                                                             ) -> None:
    (outside / "assista.db").write_text("chats and keys")
    done = run(root, f"ls -A {outside}; cat {outside}/assista.db",
               ToolTrust(hidden_paths=(str(outside),)))
    assert "chats and keys" not in done["stdout"] and "assista.db" not in done["stdout"]
    assert done["exit_code"] != 0


def test_a_sandboxed_command_runs_the_apps_skill_scripts_read_only(root: Path,
                                                                   outside: Path) -> None:
    script = outside / "skills" / "pdf-tools" / "scripts" / "hello.py"
    script.parent.mkdir(parents=True)
    script.write_text("print('skill ran')\n")
    (outside / "assista.db").write_text("chats and keys")
    trust = ToolTrust(hidden_paths=(str(outside),), shown_paths=(str(outside / "skills"),))
    done = run(root, f"{PYTHON} -I {script}; cat {outside}/assista.db", trust)
    assert "skill ran" in done["stdout"] and "chats and keys" not in done["stdout"]
    changed = run(root, f"echo x >> {script}", trust)
    assert changed["exit_code"] != 0 and script.read_text() == "print('skill ran')\n"


def test_with_the_sandbox_turned_off_a_command_runs_unsandboxed_and_says_so(
        root: Path, outside: Path, web: str) -> None:
    done = run(root, f"echo free > {outside}/new.txt; " + fetch(web),
               ToolTrust(command_sandbox=False))
    assert (outside / "new.txt").read_text() == "free\n"
    assert done["stdout"] == "hello\n"
    assert done["sandbox"] == "not sandboxed (turned off in Settings > Tools)"


def test_without_bubblewrap_commands_run_unsandboxed_and_say_why(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    bwrap_problem.cache_clear()
    try:
        found = confinement(root, root, enabled=True, network=False)
        assert found.code == "unsandboxed_missing" and not found.sandboxed
        assert found.describe() == ("not sandboxed (this system offers no sandbox: "
                                    "bubblewrap is not installed)")
        assert found.shell_line("ls -la") == "ls -la"
    finally:
        bwrap_problem.cache_clear()


def test_the_approval_says_how_the_command_will_run(root: Path) -> None:
    seen: list[ApprovalPreview] = []

    async def approver(request: ApprovalRequest) -> Any:
        seen.append(request.preview)
        return await allow_all(request)

    for trust, code in ((ToolTrust(), "sandboxed_offline"),
                        (ToolTrust(command_network=True), "sandboxed_online"),
                        (ToolTrust(command_sandbox=False), "unsandboxed_off")):
        executor = ToolExecutor(builtin_registry(), Workspace(root), approver=approver,
                                trust=trust, policies={"run_command": "ask"})
        asyncio.run(executor.run(call("true")))
        assert seen[-1].confinement == code


def test_the_shell_line_quotes_the_command_whole(root: Path) -> None:
    sandboxed = confinement(root, root, enabled=True, network=False)
    line = sandboxed.shell_line("echo 'a b' \"$HOME\"; exit 3")
    assert line.startswith("exec ") and line.endswith("'echo '\"'\"'a b'\"'\"' \"$HOME\"; exit 3'")
    assert isinstance(ToolContext().trust, ToolTrust)
