"""The app's process runs its pydantic models without plugins; its children keep them.

A real plugin, installed as pydantic finds them (a distribution on ``sys.path`` with a
``pydantic`` entry point), records each model it is asked about in a file; each case
runs in a Python of its own, through the app's entry point where it matters.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.core.model_plugins import VARIABLE, keep_plugins_out

ROOT = Path(__file__).resolve().parents[2]

PLUGIN = '''
import os

class Recorder:
    def new_schema_validator(self, schema, schema_type, schema_type_path, schema_kind,
                             config, plugin_settings):
        with open(os.environ["PLUGIN_SEEN"], "a", encoding="utf-8") as seen:
            seen.write(schema_type.__name__ + "\\n")
        return None, None, None

plugin = Recorder()
'''

#: In the child: the app's entry point (a command that ends at once), then a model made,
#: then what the process and a process it starts see of the switch.
CHILD = '''
import json, os, subprocess, sys
from desktop.__main__ import main
if sys.argv[1] == "app":
    try:
        main(["--version"])
    except SystemExit:
        pass
import pydantic

class Chat(pydantic.BaseModel):
    title: str

Chat(title="x")
grandchild = subprocess.run([sys.executable, "-c",
                             "import os; print(os.environ.get('PYDANTIC_DISABLE_PLUGINS'))"],
                            capture_output=True, text=True, check=True).stdout.strip()
print(json.dumps({"process": os.environ.get("PYDANTIC_DISABLE_PLUGINS"),
                  "child": grandchild}))
'''


@pytest.fixture()
def plugin_path(tmp_path: Path) -> Path:
    """A folder holding a pydantic plugin as pip installs one."""
    (tmp_path / "recorder_plugin.py").write_text(PLUGIN, encoding="utf-8")
    info = tmp_path / "recorder_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: recorder-plugin\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[pydantic]\nrecorder = recorder_plugin:plugin\n", encoding="utf-8")
    return tmp_path


def run_child(plugin_path: Path, how: str, **extra: str) -> tuple[dict[str, str | None], str]:
    seen = plugin_path / "seen.txt"
    seen.write_text("", encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if key != VARIABLE}
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT), str(plugin_path)]),
               PLUGIN_SEEN=str(seen), **extra)
    out = subprocess.run([sys.executable, "-c", CHILD, how], env=env, cwd=plugin_path,
                         capture_output=True, text=True, timeout=120, check=True).stdout
    return json.loads(out.splitlines()[-1]), seen.read_text(encoding="utf-8")


def test_without_the_app_pydantic_finds_the_installed_plugin(plugin_path: Path) -> None:
    state, seen = run_child(plugin_path, "plain")
    assert "Chat" in seen.split()
    assert state == {"process": None, "child": "None"}


def test_the_app_makes_its_models_without_plugins_and_its_children_keep_them(
        plugin_path: Path) -> None:
    state, seen = run_child(plugin_path, "app")
    assert seen == ""
    assert state == {"process": "__all__", "child": "None"}


def test_a_choice_the_user_made_about_plugins_stands(plugin_path: Path) -> None:
    state, seen = run_child(plugin_path, "app", PYDANTIC_DISABLE_PLUGINS="another")
    assert "Chat" in seen.split()
    assert state == {"process": "another", "child": "another"}


def test_a_given_mapping_is_switched_alone() -> None:
    before = os.environ.get(VARIABLE)
    environ: dict[str, str] = {}
    assert keep_plugins_out(environ) is True
    assert environ == {VARIABLE: "__all__"}
    assert keep_plugins_out(environ) is False
    assert os.environ.get(VARIABLE) == before
