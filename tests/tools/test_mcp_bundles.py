"""MCP bundles (.mcpb): a real bundle built here from a Python SDK server, installed
with ``assista mcp install``, listed and called through ``assista mcp list`` / the
app's MCP manager, uninstalled; bundles that break the spec are refused."""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from desktop.app import AppContext
from desktop.tools.mcp.bundles import BundleError, check_values, parse_manifest
from tests.cli.test_ask_export import assista

SERVER = '''
import os, sys
from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")


@server.tool()
def read_note(name: str) -> str:
    """Read a note from the notes folder."""
    folder = sys.argv[sys.argv.index("--folder") + 1]
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return f.read()


@server.tool()
def whoami() -> str:
    """Say which key the server was given."""
    return "key=" + os.environ.get("NOTES_API_KEY", "") + " mode=" + os.environ["NOTES_MODE"]


server.run()
'''


def manifest(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "manifest_version": "0.3", "name": "notes", "display_name": "Notes",
        "version": "1.2.0", "description": "Read notes.", "author": {"name": "Test"},
        "server": {"type": "python", "entry_point": "server/main.py",
                   "mcp_config": {"command": sys.executable,
                                  "args": ["${__dirname}/server/main.py", "--folder",
                                           "${user_config.folder}"],
                                  "env": {"NOTES_API_KEY": "${user_config.api_key}",
                                          "NOTES_MODE": "${user_config.mode}"}}},
        "user_config": {
            "folder": {"type": "directory", "title": "Notes folder", "required": True},
            "api_key": {"type": "string", "title": "API key", "sensitive": True,
                        "required": True},
            "mode": {"type": "string", "title": "Mode", "default": "fast"},
        },
        "compatibility": {"platforms": ["darwin", "win32", "linux"],
                          "runtimes": {"python": ">=3.10"}},
    }
    data.update(changes)
    return data


def build_bundle(path: Path, data: dict[str, Any], extra: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.json", json.dumps(data))
        archive.writestr("server/main.py", SERVER)
        for name, text in (extra or {}).items():
            archive.writestr(name, text)
    return path


def test_install_list_call_uninstall(tmp_path: Path) -> None:
    notes = tmp_path / "my notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("buy milk")
    bundle = build_bundle(tmp_path / "notes.mcpb", manifest())
    data = tmp_path / "data"
    args = ["--data-dir", str(data)]
    missing = assista("mcp", "install", str(bundle), *args, data_dir=tmp_path)
    assert missing.returncode == 1 and "Notes folder is required" in missing.stderr
    assert not any((data / "extensions").iterdir())  # nothing left behind
    done = assista("mcp", "install", str(bundle), "--set", f"folder={notes}",
                   "--set", "api_key=sk-bundle-secret-123", *args, data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "installed MCP server notes (Notes 1.2.0)" in done.stdout
    installed = data / "extensions" / "notes"
    assert (installed / "server" / "main.py").is_file()
    # The secret is in the secret store, not in the settings.
    ctx = AppContext.open(str(data), log_to_stderr=False)
    try:
        raw = ctx.settings.current.mcp_servers[0]
        assert "sk-bundle-secret-123" not in json.dumps(raw)
        assert raw["args"] == [f"{installed}/server/main.py", "--folder", str(notes)]
    finally:
        ctx.close()
    listed = assista("mcp", "list", *args, data_dir=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert {"notes\ttool\tread_note", "notes\ttool\twhoami"} <= set(listed.stdout.splitlines())
    again = assista("mcp", "install", str(bundle), "--set", f"folder={notes}",
                    "--set", "api_key=x", *args, data_dir=tmp_path)
    assert again.returncode == 1 and "already installed" in again.stderr
    gone = assista("mcp", "uninstall", "notes", *args, data_dir=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert "and its files" in gone.stdout and not installed.exists()
    ctx = AppContext.open(str(data), log_to_stderr=False)
    try:
        assert ctx.settings.current.mcp_servers == []
        assert ctx.secrets.get("mcp:notes:env:NOTES_API_KEY") is None
    finally:
        ctx.close()


def _result(output: Any) -> Any:
    from desktop.tools.results import ToolOutput

    return output.result if isinstance(output, ToolOutput) else output


async def test_installed_bundle_tools_answer(tmp_path: Path) -> None:
    from desktop.chat.chat_tools import ChatTools
    from desktop.tools.mcp.bundle_install import BundleService
    from desktop.tools.registry import ToolContext

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("buy milk")
    ctx = AppContext.open(str(tmp_path / "data"), log_to_stderr=False)
    tools = ChatTools(ctx)
    try:
        service = BundleService(ctx.paths.root, ctx.settings, ctx.secrets)
        opened = service.open(build_bundle(tmp_path / "n.mcpb", manifest()))
        assert [f.key for f in opened.manifest.fields] == ["folder", "api_key", "mode"]
        service.install(opened, {"folder": str(notes), "api_key": "sk-1"})
        results = await tools.start_mcp()
        assert results == {"notes": True}
        registry = tools.registry()
        names = [t.name for t in registry if t.source == "notes"]
        read = next(registry.get(n) for n in names if n.endswith("read_note"))
        who = next(registry.get(n) for n in names if n.endswith("whoami"))
        assert read is not None and who is not None
        text = json.dumps(_result(await read.handler({"name": "todo.txt"}, ToolContext())))
        assert "buy milk" in text
        assert "key=sk-1 mode=fast" in json.dumps(_result(await who.handler({}, ToolContext())))
    finally:
        await tools.stop_mcp()
        ctx.close()


@pytest.mark.parametrize(("change", "reason"), [
    ({"manifest_version": None}, "manifest_version is missing"),
    ({"author": {}}, "author.name"),
    ({"name": "../evil"}, "may hold only"),
    ({"server": {"type": "java", "entry_point": "a", "mcp_config": {"command": "x"}}},
     "server.type"),
    ({"server": {"type": "python", "entry_point": "../../x.py",
                 "mcp_config": {"command": "x"}}}, "outside the bundle"),
    ({"server": {"type": "python", "entry_point": "missing.py",
                 "mcp_config": {"command": "x"}}}, "not in the bundle"),
    ({"user_config": {"k": {"type": "color", "title": "K"}}}, "user_config.k.type"),
    ({"compatibility": {"platforms": ["amiga"]}}, "compatibility.platforms"),
])
def test_bad_manifests_refused(tmp_path: Path, change: dict[str, Any], reason: str) -> None:
    data = {k: v for k, v in {**manifest(), **change}.items() if v is not None}
    bundle = build_bundle(tmp_path / "bad.mcpb", data)
    done = assista("mcp", "install", str(bundle), "--data-dir", str(tmp_path / "data"),
                   data_dir=tmp_path)
    assert done.returncode == 1 and reason in done.stderr, done.stderr
    assert "the bundle is refused" in done.stderr
    assert not any((tmp_path / "data" / "extensions").iterdir())


def test_traversal_zip_refused(tmp_path: Path) -> None:
    bundle = build_bundle(tmp_path / "evil.mcpb", manifest(), {"../../escaped.txt": "x"})
    done = assista("mcp", "install", str(bundle), "--data-dir", str(tmp_path / "data"),
                   data_dir=tmp_path)
    assert done.returncode == 1 and "outside its folder" in done.stderr
    assert not (tmp_path / "escaped.txt").exists()
    assert not list((tmp_path / "data").rglob("escaped.txt"))


def test_runtime_checks(tmp_path: Path) -> None:
    from desktop.tools.mcp.bundle_install import BundleService

    ctx = AppContext.open(str(tmp_path / "data"), log_to_stderr=False)
    try:
        service = BundleService(ctx.paths.root, ctx.settings, ctx.secrets)
        newer = manifest(compatibility={"runtimes": {"python": ">=99"}})
        opened = service.open(build_bundle(tmp_path / "a.mcpb", newer))
        with pytest.raises(BundleError, match=r"needs Python >=99; this computer has 3\."):
            service.install(opened, {"folder": str(tmp_path), "api_key": "k"})
        opened.discard()
        gone = manifest()
        gone["server"]["mcp_config"]["command"] = "no-such-runtime-xyz"
        opened = service.open(build_bundle(tmp_path / "b.mcpb", gone))
        with pytest.raises(BundleError, match="needs no-such-runtime-xyz, which is not"):
            service.install(opened, {"folder": str(tmp_path), "api_key": "k"})
        opened.discard()
        assert ctx.settings.current.mcp_servers == []
    finally:
        ctx.close()


def test_values_checked() -> None:
    parsed = parse_manifest(manifest(user_config={
        "n": {"type": "number", "title": "Count", "min": 1, "max": 5},
        "b": {"type": "boolean", "title": "Flag", "default": False}}))
    assert check_values(parsed, {"n": "3"}) == {"n": 3, "b": False}
    with pytest.raises(BundleError, match="out of range"):
        check_values(parsed, {"n": "9"})


def _add_tree(archive: zipfile.ZipFile, folder: Path, prefix: str) -> None:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            archive.write(path, f"{prefix}/{path.relative_to(folder).as_posix()}")


def test_reference_server_everything_as_a_bundle(tmp_path: Path) -> None:
    """The protocol's reference server (node, from npm) packed with its node_modules as
    a real .mcpb: installed by the CLI, its tools listed and called, uninstalled."""
    import asyncio

    from tests.tools.mcp_reference import PREFIX, everything_command

    everything_command()  # skips, saying why, where it is not installed
    entry = "server/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    data = {"manifest_version": "0.3", "name": "everything", "version": "1.0.0",
            "description": "The MCP reference server.", "author": {"name": "MCP"},
            "server": {"type": "node", "entry_point": entry,
                       "mcp_config": {"command": "node",
                                      "args": ["${__dirname}/" + entry, "stdio"]}},
            "compatibility": {"platforms": ["linux", "darwin", "win32"],
                              "runtimes": {"node": ">=18"}}}
    bundle = tmp_path / "everything.mcpb"
    with zipfile.ZipFile(bundle, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("manifest.json", json.dumps(data))
        _add_tree(archive, PREFIX / "node_modules", "server/node_modules")
    args = ["--data-dir", str(tmp_path / "data")]
    done = assista("mcp", "install", str(bundle), *args, data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    listed = assista("mcp", "list", *args, data_dir=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "everything\ttool\techo" in listed.stdout.splitlines()

    async def call_echo() -> Any:
        from desktop.chat.chat_tools import ChatTools
        from desktop.tools.registry import ToolContext

        ctx = AppContext.open(str(tmp_path / "data"), log_to_stderr=False)
        tools = ChatTools(ctx)
        try:
            assert await tools.start_mcp() == {"everything": True}
            echo = next(t for t in tools.registry() if t.source == "everything"
                        and t.name.endswith("echo"))
            return _result(await echo.handler({"message": "bundled hello"}, ToolContext()))
        finally:
            await tools.stop_mcp()
            ctx.close()

    assert "bundled hello" in json.dumps(asyncio.run(call_echo()))
    gone = assista("mcp", "uninstall", "everything", *args, data_dir=tmp_path)
    assert gone.returncode == 0 and "and its files" in gone.stdout
    assert not (tmp_path / "data" / "extensions" / "everything").exists()
