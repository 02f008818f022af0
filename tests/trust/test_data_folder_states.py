"""Every subcommand of ``assista --help`` against a read-only, a missing, a damaged
and a broken data folder: never a traceback; it works, or says why in one line and
exits non-zero. In a read-only folder the commands that only read work (export,
inspect, knowledge list and search, ask --no-save); those that save say the folder
cannot be written. A missing folder is not created by a command that only reads."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from desktop.cli.commands import build_parser
from tests.support.images import png_bytes
from tests.support.openai_server import FakeOpenAIServer
from tests.trust.folders import break_apart, damage, read_only_mount
from tests.trust.support import KEY, assista

READS = {"export", "inspect", "knowledge list", "knowledge search", "ask --no-save", "image",
         "skills list", "project list", "project show", "memory list"}
#: Commands that write nothing in the data folder and ask the model server for audio (the
#: loopback server here has none: tests/cli/test_audio_cli.py runs them).
AUDIO = {"transcribe", "speak"}


def leaf_commands(parser: argparse.ArgumentParser, prefix: str = "") -> set[str]:
    """Every runnable subcommand, as the words that name it ("knowledge add")."""
    found: set[str] = set()
    for action in parser._actions:  # (argparse keeps its subparsers there)
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found |= leaf_commands(child, f"{prefix}{name} ") or {f"{prefix}{name}"}
    return found


def commands(tmp: Path, url: str) -> dict[str, list[str]]:
    ask = ["ask", "--base-url", url, "--model", "gpt-test"]
    return {
        "ask": [*ask, "hello"],
        "ask --no-save": [*ask, "--no-save", "hello"],
        "knowledge add": ["knowledge", "add", "kb", str(tmp / "docs")],
        "knowledge index": ["knowledge", "index", "kb"],
        "knowledge list": ["knowledge", "list"],
        "knowledge search": ["knowledge", "search", "kb", "alpaca"],
        "export": ["export", "--format", "json"],
        "image": ["image", "--base-url", url, "--model", "gpt-image-1", "--out",
                  str(tmp / "picture.png"), "a cat"],
        "import": ["import", str(tmp / "chats.json")],
        "mcp list": ["mcp", "list"],
        "mcp login": ["mcp", "login", "srv"],
        "mcp logout": ["mcp", "logout", "srv"],
        "mcp install": ["mcp", "install", str(tmp / "missing.mcpb")],
        "mcp uninstall": ["mcp", "uninstall", "srv"],
        "skills add": ["skills", "add", str(tmp / "docs")],
        "skills list": ["skills", "list"],
        "skills remove": ["skills", "remove", "nope"],
        "project create": ["project", "create", "Thesis", "--instructions", "Be brief."],
        "project list": ["project", "list"],
        "project show": ["project", "show", "Garden"],
        "project delete": ["project", "delete", "Garden"],
        "memory add": ["memory", "add", "The user likes tea."],
        "memory list": ["memory", "list"],
        "memory forget": ["memory", "forget", "nope"],
        "transcribe": ["transcribe", "--base-url", url, "--model", "whisper-1",
                       str(tmp / "docs" / "notes.md")],
        "speak": ["speak", "--base-url", url, "--model", "tts-1", "--out",
                  str(tmp / "speech.mp3"), "hello"],
        "inspect": ["inspect"],
        "undo": ["undo", "--session", "nope"],
        "sync": ["sync", "--target", (tmp / "sync").as_uri()],
        "quick": ["quick"],
    }


def populate(data: Path, tmp: Path, server: FakeOpenAIServer) -> None:
    server.enqueue_text("alpaca answer")
    for args in (["ask", "--base-url", server.base_url, "--model", "gpt-test", "hi"],
                 ["knowledge", "add", "kb", str(tmp / "docs")],
                 ["project", "create", "Garden"]):
        done = assista(*args, data_dir=data, env=KEY)
        assert done.returncode == 0, done.stderr
    exported = assista("export", "--format", "json", data_dir=data)
    (tmp / "chats.json").write_text(exported.stdout)


def run_all(data: Path, tmp: Path, server: FakeOpenAIServer) -> dict[str, tuple[int, str]]:
    """Each command's exit status and stderr; asserts each is clear."""
    env = {**KEY, "ASSISTA_SYNC_PASSPHRASE": "correct horse"}
    no_display = {"DISPLAY": "", "WAYLAND_DISPLAY": "", "QT_QPA_PLATFORM": ""}
    table = commands(tmp, server.base_url)
    assert set(table) - {"ask --no-save"} == leaf_commands(build_parser())
    results = {}
    for name, args in table.items():
        if name.startswith("ask"):
            server.enqueue_text("answer")
        elif name == "image":
            server.enqueue_images([png_bytes()])
        done = assista(*args, data_dir=data, env={**(no_display if name == "quick" else {}),
                                                  **env}, timeout=120)
        said = done.stdout + done.stderr
        assert "Traceback" not in said, f"{name}: {said}"
        assert done.returncode >= 0, f"{name} killed by signal {-done.returncode}: {said}"
        lines = done.stderr.strip().splitlines()
        if done.returncode != 0:
            errors = [line for line in lines if line.startswith("assista: error: ")]
            assert len(errors) == 1 and lines[-1] == errors[0], f"{name}: {done.stderr}"
            assert len(lines) <= 3, f"{name}: {done.stderr}"
        results[name] = (done.returncode, done.stderr)
    return results


def docs_and_sync(folder: Path) -> None:
    (folder / "docs").mkdir()
    (folder / "docs" / "notes.md").write_text("alpaca notes\n")
    (folder / "sync").mkdir()


@pytest.fixture(scope="module")
def populated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder with a chat, a knowledge base and a project, and its export
    (chats.json), made once by the real CLI: each test takes a copy."""
    template = tmp_path_factory.mktemp("populated")
    docs_and_sync(template)
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        populate(template / "data", template, server)
    return template


@pytest.fixture
def setup(tmp_path: Path, populated: Path) -> Path:
    """A test folder: docs, sync, chats.json and data (a copy of the populated one)."""
    docs_and_sync(tmp_path)
    shutil.copy2(populated / "chats.json", tmp_path / "chats.json")
    shutil.copytree(populated / "data", tmp_path / "data")
    return tmp_path


def test_a_read_only_folder(setup: Path) -> None:
    data = setup / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        before = sorted(p.name for p in data.iterdir())
        with read_only_mount(data):
            results = run_all(data, setup, server)
    assert sorted(p.name for p in data.iterdir()) == before
    for name, (code, err) in results.items():
        if name in READS:
            assert code == 0, f"{name}: {err}"
        elif name not in {"quick", "mcp list", "mcp login", "mcp logout", *AUDIO}:
            assert code != 0 and "cannot be written" in err, f"{name}: {err}"


def test_a_missing_folder(setup: Path) -> None:
    data = setup / "nowhere"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        for name, args in commands(setup, server.base_url).items():
            if name in READS - {"ask --no-save", "image"}:  # (they work on a new machine)
                done = assista(*args, data_dir=data)
                assert done.returncode == 1 and not data.exists(), f"{name}: {done.stderr}"
                assert done.stderr == f"assista: error: The data folder {data} does not " \
                                      "exist.\n"
        run_all(data, setup, server)


def test_a_damaged_folder(setup: Path) -> None:
    data = setup / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        damage(data)
        run_all(data, setup, server)
    assert json.loads(assista("export", "--format", "json", data_dir=data).stdout)


def test_a_broken_folder(setup: Path) -> None:
    data = setup / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        break_apart(data)
        run_all(data, setup, server)
