"""run_command gives commands a scrubbed environment plus the variables the user names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.messages import ToolCallPart
from desktop.tools import ToolExecutor, Workspace, builtin_registry
from desktop.tools.approval import allow_all
from desktop.tools.builtins._cmdenv import command_environment, looks_secret
from desktop.tools.trust import ToolTrust

SECRETS = {
    "OPENAI_API_KEY": "sk-live-1", "ANTHROPIC_API_KEY": "sk-ant-2", "GITHUB_TOKEN": "ghp_3",
    "DB_PASSWORD": "hunter4", "AWS_SECRET_ACCESS_KEY": "aws5", "AWS_ACCESS_KEY_ID": "AKIA6",
    "AWS_REGION": "eu-west-7", "MY_SECRET": "s8", "NODE_AUTH_TOKEN": "npm9",
    "ASSISTA_SYNC_PASSPHRASE": "pp10", "HTTP_AUTH": "basic11", "SLACK_WEBHOOK_TOKEN": "x12",
}


async def run_env(tmp_path: Path, trust: ToolTrust) -> dict[str, str]:
    executor = ToolExecutor(builtin_registry(), Workspace(tmp_path), approver=allow_all,
                            trust=trust)
    part = await executor.run(ToolCallPart(id="c", name="run_command",
                                           arguments=json.dumps({"command": "env"})))
    stdout = json.loads(part.content)["result"]["stdout"]
    return dict(line.split("=", 1) for line in stdout.splitlines() if "=" in line)


async def test_commands_get_no_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {**SECRETS, "NODE_OPTIONS": "--max-old-space-size=64",
                        "JAVA_HOME": "/opt/java", "HOME": "/home/u"}.items():
        monkeypatch.setenv(name, value)
    env = await run_env(tmp_path, ToolTrust())
    leaked = {n for n, v in SECRETS.items() if n in env or v in json.dumps(env)}
    assert leaked == set()
    assert env["HOME"] == "/home/u" and env["PATH"]
    assert "JAVA_HOME" not in env and "NODE_OPTIONS" not in env

    allowed = await run_env(tmp_path, ToolTrust(command_env=("JAVA_HOME", "NODE_*",
                                                             "AWS_*", "GITHUB_TOKEN")))
    assert allowed["JAVA_HOME"] == "/opt/java"
    assert allowed["NODE_OPTIONS"] == "--max-old-space-size=64"
    assert "NODE_AUTH_TOKEN" not in allowed  # a prefix never brings in a secret
    assert not any(name.startswith("AWS_") for name in allowed)
    assert allowed["GITHUB_TOKEN"] == "ghp_3"  # named exactly: the user's choice


def test_secret_names() -> None:
    for name in SECRETS:
        assert looks_secret(name), name
    for name in ("PATH", "HOME", "NODE_OPTIONS", "JAVA_HOME", "LANG", "PWD"):
        assert not looks_secret(name), name
    assert command_environment({"LC_ALL": "C", "X_API_KEY": "k"}) == {"LC_ALL": "C"}


def test_the_app_wipes_its_secrets_from_its_own_environment_block() -> None:
    """What ``/proc/<pid>/environ`` shows of the app (a real process): no key, token or
    password; the desktop's session addresses stay; os.environ keeps every value."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    from desktop.tools.secret_names import holds_secret_value

    if not sys.platform.startswith("linux"):
        pytest.skip("/proc: Linux")
    assert holds_secret_value("AWS_SESSION_TOKEN") and holds_secret_value("OPENAI_API_KEY")
    assert not holds_secret_value("DBUS_SESSION_BUS_ADDRESS")
    assert not holds_secret_value("XDG_SESSION_TYPE") and not holds_secret_value("PATH")
    code = ("import json, os; from desktop.tools.process_guard import guard_process; "
            "guard_process(); block = open('/proc/self/environ', 'rb').read(); "
            "print(json.dumps({'block': block.decode('utf-8', 'replace'), "
            "'kept': os.environ.get('AWS_SESSION_TOKEN'), "
            "'dumpable': __import__('ctypes').CDLL(None).prctl(3, 0, 0, 0, 0)}))")
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(Path(__file__).parents[2]),
           "AWS_SESSION_TOKEN": "tok-secret-1", "MY_SERVICE_PASSWORD": "pw-secret-2",
           "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/bus", "LANG": "C.UTF-8"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    seen = json.loads(out)
    assert "tok-secret-1" not in seen["block"] and "pw-secret-2" not in seen["block"]
    assert "AWS_SESSION_TOKEN" not in seen["block"]
    assert "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/bus" in seen["block"]
    assert seen["kept"] == "tok-secret-1"
    assert seen["dumpable"] == 0  # (PR_GET_DUMPABLE: others of the user cannot read it)
