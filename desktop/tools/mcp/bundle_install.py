"""Installing and uninstalling MCP bundles: what File → Install extension…, a file
dropped on the window and ``assista mcp install`` / ``uninstall`` do (Qt-free).

Installing: the ``.mcpb`` is unpacked safely (desktop.storage.safe_zip) into
``<data folder>/extensions/.incoming-…``; its manifest is checked
(desktop.tools.mcp.bundles) — a bundle that fails is refused with the reason and
nothing stays behind; the user answers its configuration (:meth:`BundleService.install`);
the folder becomes ``extensions/<name>`` and the server is added to Settings → MCP
servers (sensitive answers go to the keyring when the settings are saved).
Uninstalling removes the server, its secrets and sign-in, and the bundle's folder.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from desktop.storage.mcp_secrets import DeletableSecrets, forget_server
from desktop.storage.safe_zip import UnsafeZipError, extract_zip
from desktop.storage.settings_service import SettingsService
from desktop.tools.mcp.bundles import (
    BundleError,
    Manifest,
    check_values,
    parse_manifest,
    server_entry,
)

EXTENSIONS_DIRNAME = "extensions"
MAX_BUNDLE_BYTES = 500 * 1024 * 1024  # unpacked (node_modules can be large)
MANIFEST_MAX = 1024 * 1024


class OpenedBundle(msgspec.Struct, weakref=True):
    """A bundle unpacked and checked, waiting for the user's answers."""

    manifest: Manifest
    folder: Path  # where it is unpacked (not installed yet)

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _runtime_problem(manifest: Manifest, command: str) -> str | None:
    """Why the bundle cannot run on this computer (None: it can, as far as we know)."""
    if shutil.which(command) is None and not Path(command).is_file():
        return f"it needs {command}, which is not installed on this computer"
    runtime = {"node": "node", "python": "python", "uv": "python"}.get(manifest.server_type)
    wanted = manifest.runtimes.get(runtime) if runtime else None
    if wanted and runtime == "python" and manifest.server_type == "uv":
        return None  # uv brings the Python it needs
    if wanted:
        from packaging.specifiers import InvalidSpecifier, SpecifierSet
        from packaging.version import InvalidVersion, Version

        try:
            spec = SpecifierSet(wanted)
            done = subprocess.run([command, "--version"], capture_output=True, text=True,
                                  timeout=20, check=False)
            said = (done.stdout or done.stderr).strip().split()
            version = Version(said[-1].lstrip("v") if said else "")
        except (InvalidSpecifier, InvalidVersion, OSError, subprocess.SubprocessError):
            return None  # a range or version we cannot read: let the server try
        if version not in spec:
            kind = "Node.js" if runtime == "node" else "Python"
            return f"it needs {kind} {wanted}; this computer has {version}"
    return None


def _command(manifest: Manifest, command: str) -> str:
    """The command as this computer names it: a Python bundle's ``python`` is
    ``python3`` where only that exists (most Linux systems)."""
    if manifest.server_type == "python" and command == "python" \
            and shutil.which(command) is None and shutil.which("python3") is not None:
        return "python3"
    return command


class BundleService:
    def __init__(self, data_root: Path, settings: SettingsService,
                 secrets: DeletableSecrets) -> None:
        self.data_root = data_root
        self.settings = settings
        self.secrets = secrets

    @property
    def extensions_dir(self) -> Path:
        return self.data_root / EXTENSIONS_DIRNAME

    def open(self, path: str | Path) -> OpenedBundle:
        """Unpack and check ``path``; BundleError with the reason (nothing kept)."""
        source = Path(path).expanduser()
        if not source.is_file():
            raise BundleError(f"{source} is not a file", code="bundle_missing",
                              params={"path": str(source)})
        self.extensions_dir.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.extensions_dir))
        try:
            extract_zip(source, folder, MAX_BUNDLE_BYTES)
            manifest_file = folder / "manifest.json"
            if not manifest_file.is_file():
                raise BundleError("the bundle is refused: it has no manifest.json",
                                  code="bundle_refused", params={"reason": "no manifest.json"})
            if manifest_file.stat().st_size > MANIFEST_MAX:
                raise BundleError("the bundle is refused: manifest.json is too large",
                                  code="bundle_refused",
                                  params={"reason": "manifest.json is too large"})
            try:
                data = json.loads(manifest_file.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                reason = f"manifest.json is not valid JSON ({exc})"
                raise BundleError(f"the bundle is refused: {reason}", code="bundle_refused",
                                  params={"reason": reason}) from None
            return OpenedBundle(parse_manifest(data, folder), folder)
        except UnsafeZipError as exc:
            shutil.rmtree(folder, ignore_errors=True)
            raise BundleError(f"the bundle is refused: {exc}", code="bundle_refused",
                              params={"reason": str(exc)}) from None
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise

    def installed(self, name: str) -> bool:
        return any(raw.get("name") == name for raw in self.settings.current.mcp_servers)

    def install(self, bundle: OpenedBundle, values: Mapping[str, Any]) -> str:
        """Install an opened bundle with the user's answers; the server's name. Raises
        BundleError (the bundle stays opened, so the form can be corrected)."""
        manifest = bundle.manifest
        if self.installed(manifest.name):
            raise BundleError(f"an MCP server named {manifest.name} is already installed",
                              code="bundle_exists", params={"name": manifest.name})
        answers = check_values(manifest, values)
        target = self.extensions_dir / manifest.name
        entry = server_entry(manifest, target, answers)
        entry["command"] = _command(manifest, str(entry["command"]))
        problem = _runtime_problem(manifest, str(entry["command"]))
        if problem is not None:
            raise BundleError(f"the bundle is refused: {problem}", code="bundle_refused",
                              params={"reason": problem})
        if target.exists():
            shutil.rmtree(target)  # left by an install that did not finish
        bundle.folder.rename(target)
        bundle.folder = target
        try:
            self.settings.update(mcp_servers=[*self.settings.current.mcp_servers, entry])
        except Exception:
            shutil.rmtree(target, ignore_errors=True)
            raise
        return manifest.name

    def uninstall(self, name: str) -> bool:
        """Remove the server ``name``, its secrets and, for a bundle, its files; whether
        it was installed from a bundle. BundleError when there is no such server."""
        servers = list(self.settings.current.mcp_servers)
        raw = next((s for s in servers if s.get("name") == name), None)
        if raw is None:
            raise BundleError(f"there is no MCP server named {name}", code="bundle_unknown",
                              params={"name": name})
        self.settings.update(mcp_servers=[s for s in servers if s is not raw])
        forget_server(raw, self.secrets)
        return remove_bundle_files(self.data_root, raw)


def remove_bundle_files(data_root: Path, raw: Mapping[str, Any]) -> bool:
    """Delete the unpacked bundle of the server settings ``raw`` (only a folder right in
    the extensions folder: never what a hand-edited setting points at elsewhere);
    whether there was one."""
    if not raw.get("bundle"):
        return False
    folder = Path(str(raw["bundle"]))
    if folder.resolve().parent != (data_root / EXTENSIONS_DIRNAME).resolve() \
            or not folder.is_dir():
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return True
