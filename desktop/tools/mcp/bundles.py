"""MCP bundles (``.mcpb``): a zip with a ``manifest.json`` describing a local MCP server.

The manifest (MCPB spec, manifest_version 0.1-0.3; ``dxt_version`` of the older DXT
files is read the same) names the server (``name``, ``version``, ``description``,
``author.name``), how it runs (``server.type`` node/python/binary/uv,
``server.entry_point``, ``server.mcp_config`` with ``command``, ``args``, ``env``,
``platform_overrides``), what the user fills in (``user_config``: string, number,
boolean, directory or file fields, ``sensitive``, ``required``, ``default``,
``multiple``, ``min``/``max``) and where it works (``compatibility.platforms``,
``compatibility.runtimes``). :func:`parse_manifest` checks all of it and refuses a
bundle with the reason; :func:`server_entry` turns the manifest and the user's
answers into this app's MCP server settings (``${__dirname}``,
``${user_config.KEY}``, ``${HOME}``... substituted).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import msgspec

from desktop.core.errors import ConfigError

SERVER_TYPES = ("node", "python", "binary", "uv")
FIELD_TYPES = ("string", "number", "boolean", "directory", "file")
PLATFORMS = ("darwin", "win32", "linux")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_VAR_RE = re.compile(r"\$\{([^}]+)\}")


class BundleError(ConfigError):
    """A bundle refused: its manifest breaks the spec, or it cannot run here."""


def _refuse(reason: str) -> BundleError:
    return BundleError(f"the bundle is refused: {reason}", code="bundle_refused",
                       params={"reason": reason})


class ConfigField(msgspec.Struct, frozen=True):
    """One field of a bundle's ``user_config``: something the user fills in."""

    key: str
    type: str
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    sensitive: bool = False
    multiple: bool = False
    minimum: float | None = None
    maximum: float | None = None


class Manifest(msgspec.Struct, frozen=True):
    """A bundle's manifest as read: the server, how it runs, what the user fills in."""

    name: str
    display_name: str
    version: str
    description: str
    author: str
    server_type: str
    entry_point: str
    command: str
    args: tuple[str, ...]
    env: Mapping[str, str]
    fields: tuple[ConfigField, ...]
    runtimes: Mapping[str, str]
    raw: Mapping[str, Any]


def _text(data: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise _refuse(f"{where}{key} is missing or not text")
    return value.strip()


def _field(key: str, raw: object) -> ConfigField:
    if not _KEY_RE.match(key):
        raise _refuse(f"user_config key {key!r} is not a plain name")
    if not isinstance(raw, dict):
        raise _refuse(f"user_config.{key} is not an object")
    kind = raw.get("type")
    if kind not in FIELD_TYPES:
        raise _refuse(f"user_config.{key}.type must be one of {', '.join(FIELD_TYPES)}")
    title = _text(raw, "title", f"user_config.{key}.")
    for flag in ("required", "sensitive", "multiple"):
        if flag in raw and not isinstance(raw[flag], bool):
            raise _refuse(f"user_config.{key}.{flag} is not true or false")
    bounds = {}
    for bound in ("min", "max"):
        value = raw.get(bound)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise _refuse(f"user_config.{key}.{bound} is not a number")
        bounds[bound] = None if value is None else float(value)
    return ConfigField(key=key, type=str(kind), title=title,
                       description=str(raw.get("description") or ""),
                       required=bool(raw.get("required", False)), default=raw.get("default"),
                       sensitive=bool(raw.get("sensitive", False)),
                       multiple=bool(raw.get("multiple", False)),
                       minimum=bounds["min"], maximum=bounds["max"])


def _platform() -> str:
    return "darwin" if sys.platform == "darwin" else "win32" if sys.platform == "win32" \
        else "linux"


def _mcp_config(server: Mapping[str, Any]) -> tuple[str, list[str], dict[str, str]]:
    config = server.get("mcp_config")
    if not isinstance(config, dict):
        raise _refuse("server.mcp_config is missing")
    override = (config.get("platform_overrides") or {}).get(_platform())
    merged = {**config, **override} if isinstance(override, dict) else config
    command = _text(merged, "command", "server.mcp_config.")
    args = merged.get("args", [])
    env = merged.get("env", {})
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise _refuse("server.mcp_config.args is not a list of text")
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise _refuse("server.mcp_config.env is not a mapping of text")
    return command, list(args), {str(k): v for k, v in env.items()}


def _compatibility(compat: object) -> dict[str, str]:
    """The runtimes the bundle asks for; BundleError when it does not work here."""
    if not isinstance(compat, dict):
        raise _refuse("compatibility is not an object")
    platforms = compat.get("platforms")
    if platforms is not None:
        if not isinstance(platforms, list) or not all(p in PLATFORMS for p in platforms):
            raise _refuse(f"compatibility.platforms may name only {', '.join(PLATFORMS)}")
        if _platform() not in platforms:
            raise _refuse(f"it works only on {', '.join(platforms)}, not on {_platform()}")
    runtimes = compat.get("runtimes") or {}
    if not isinstance(runtimes, dict) or not all(isinstance(v, str) for v in runtimes.values()):
        raise _refuse("compatibility.runtimes is not a mapping of version ranges")
    return {str(k): v for k, v in runtimes.items()}


def parse_manifest(data: object, folder: Path | None = None) -> Manifest:
    """The checked manifest (BundleError with the reason otherwise). With ``folder``
    (the unpacked bundle) the entry point must be in it."""
    if not isinstance(data, dict):
        raise _refuse("manifest.json is not a JSON object")
    version = data.get("manifest_version", data.get("dxt_version"))
    if not isinstance(version, str) or not version:
        raise _refuse("manifest_version is missing")
    name = _text(data, "name", "")
    if not _NAME_RE.match(name):
        raise _refuse(f"the name {name!r} may hold only letters, digits, '.', '_' and '-'")
    author = data.get("author")
    if not isinstance(author, dict) or not isinstance(author.get("name"), str):
        raise _refuse("author.name is missing")
    server = data.get("server")
    if not isinstance(server, dict):
        raise _refuse("server is missing")
    if server.get("type") not in SERVER_TYPES:
        raise _refuse(f"server.type must be one of {', '.join(SERVER_TYPES)}")
    entry = _text(server, "entry_point", "server.")
    entry_path = PurePosixPath(entry.replace("\\", "/"))
    if entry_path.is_absolute() or ".." in entry_path.parts:
        raise _refuse("server.entry_point is outside the bundle")
    if folder is not None and not (folder / entry_path).is_file():
        raise _refuse(f"the entry point {entry} is not in the bundle")
    command, args, env = _mcp_config(server)
    raw_fields = data.get("user_config") or {}
    if not isinstance(raw_fields, dict):
        raise _refuse("user_config is not an object")
    runtimes = _compatibility(data.get("compatibility") or {})
    return Manifest(name=name, display_name=_text(data, "display_name", "", required=False)
                    or name, version=_text(data, "version", ""),
                    description=_text(data, "description", ""), author=author["name"],
                    server_type=str(server["type"]), entry_point=entry, command=command,
                    args=tuple(args), env=env,
                    fields=tuple(_field(k, v) for k, v in raw_fields.items()),
                    runtimes=runtimes, raw=data)


# -- the user's answers -------------------------------------------------------------------

def check_values(manifest: Manifest, values: Mapping[str, Any]) -> dict[str, Any]:
    """The answers completed with defaults and checked (BundleError naming the field)."""
    out: dict[str, Any] = {}
    for f in manifest.fields:
        value = values.get(f.key)
        if value in (None, "", []):
            value = f.default
        if value in (None, "", []):
            if f.required:
                raise BundleError(f"{f.title} is required", code="bundle_value_missing",
                                  params={"field": f.title})
            continue
        items = value if isinstance(value, list) else [value]
        checked = [_one_value(f, item) for item in items]
        out[f.key] = checked if f.multiple else checked[0]
    return out


def _one_value(f: ConfigField, value: Any) -> Any:
    if f.type == "boolean":
        if isinstance(value, str):
            value = value.strip().lower() in ("1", "true", "yes", "on")
        return bool(value)
    if f.type == "number":
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise BundleError(f"{f.title} is not a number", code="bundle_value_bad",
                              params={"field": f.title}) from None
        if (f.minimum is not None and number < f.minimum) or \
                (f.maximum is not None and number > f.maximum):
            raise BundleError(f"{f.title} is out of range", code="bundle_value_bad",
                              params={"field": f.title})
        return int(number) if number.is_integer() else number
    return str(value)


def _expand(text: str, variables: Mapping[str, Any]) -> str:
    def one(match: re.Match[str]) -> str:
        value = variables.get(match.group(1))
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list):
            return " ".join(str(v) for v in value)
        return str(value)

    return _VAR_RE.sub(one, text)


def _variables(folder: Path, values: Mapping[str, Any]) -> dict[str, Any]:
    home = Path.home()
    variables: dict[str, Any] = {
        "__dirname": str(folder), "HOME": str(home), "DESKTOP": str(home / "Desktop"),
        "DOCUMENTS": str(home / "Documents"), "DOWNLOADS": str(home / "Downloads"),
        "pathSeparator": "\\" if sys.platform == "win32" else "/",
        "/": "\\" if sys.platform == "win32" else "/"}
    variables.update({f"user_config.{k}": v for k, v in values.items()})
    return variables


def server_entry(manifest: Manifest, folder: Path, values: Mapping[str, Any]) -> dict[str, Any]:
    """The MCP server settings of the installed bundle: the command line and
    environment with the variables filled in; sensitive answers marked secret (they go
    to the keyring when the settings are saved)."""
    variables = _variables(folder, values)
    sensitive = {f"${{user_config.{f.key}}}" for f in manifest.fields if f.sensitive}
    args: list[str] = []
    secret_args: list[int] = []
    for arg in manifest.args:
        whole = _VAR_RE.fullmatch(arg)
        value = variables.get(whole.group(1)) if whole else None
        if whole and (value is None or isinstance(value, list)):
            args += [str(v) for v in value or []]  # a missing optional answer: no argument
            continue
        if any(token in arg for token in sensitive):
            secret_args.append(len(args))
        args.append(_expand(arg, variables))
    env = {key: _expand(value, variables) for key, value in manifest.env.items()}
    secret_env = [key for key, value in manifest.env.items()
                  if any(token in value for token in sensitive)]
    command = _expand(manifest.command, variables)
    return {"name": manifest.name, "transport": "stdio", "command": command, "args": args,
            "env": env, "secret_env": secret_env, "secret_args": secret_args,
            "cwd": str(folder), "bundle": str(folder)}
