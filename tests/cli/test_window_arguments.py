"""``assista`` with only the window's options is read without building every command's
parser (~18 ms of each start of the window); anything else goes to the whole parser,
which reads it as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.cli.commands import build_parser, window_arguments

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv", [[], ["--data-dir", "x"], ["--data-dir=x", "--smoke"],
                                  ["--smoke"], ["--data-dir", "ask"],
                                  ["--data-dir", "a", "--data-dir", "b"]])
def test_the_window_options_read_as_the_whole_parser_reads_them(argv: list[str]) -> None:
    args = window_arguments(argv)
    assert args is not None
    whole = build_parser().parse_args(argv)
    assert (args.command, args.data_dir, args.smoke) == (whole.command, whole.data_dir,
                                                         whole.smoke)


@pytest.mark.parametrize("argv", [["ask", "hi"], ["quick"], ["--smoke", "quick"], ["--help"],
                                  ["-h"], ["--version"], ["--data-dir"], ["--data", "x"],
                                  ["--unknown"], ["export", "--data-dir", "x"]])
def test_anything_else_goes_to_the_whole_parser(argv: list[str]) -> None:
    assert window_arguments(argv) is None


def test_a_missing_folder_is_said_once(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "desktop", "--data-dir"], cwd=ROOT,
                          env=dict(os.environ, HOME=str(tmp_path)), capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.count("expected one argument") == 1, done.stderr


def test_opening_the_window_builds_no_command_parser() -> None:
    probe = ("import sys, json\n"
             "import desktop.cli.commands as commands\n"
             "seen = {}\n"
             "def window(args):\n"
             "    seen['args'] = [args.command, args.data_dir, args.smoke]\n"
             "    seen['loaded'] = [n for n in ('desktop.cli.skills_cmd', "
             "'desktop.cli.project_args', 'desktop.cli.media_args') if n in sys.modules]\n"
             "    return 0\n"
             "commands._open_window = window\n"
             "commands.run(['--data-dir', 'folder'])\n"
             "print(json.dumps(seen))\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen == {"args": [None, "folder", False], "loaded": []}
