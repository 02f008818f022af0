"""The MCP server catalog: servers listed by the official MCP registry.

The registry's public API (``GET /v0.1/servers``: the frozen, stable version its
OpenAPI document lists, modelcontextprotocol/registry docs/reference/api/openapi.yaml;
``/v0/servers`` is the development version, asked when a registry answers 404 to
the first, e.g. a subregistry made before v0.1) returns pages of
``{"servers": [{"server": <server.json>, "_meta": {...}}], "metadata":
{"nextCursor": ...}}``; the next page is asked for with ``?cursor=<nextCursor>``,
the cursor passed back exactly. Every version of a server is listed; the ones the
registry marks ``isLatest`` (or the last seen) are kept, deleted ones dropped.

:class:`RegistryCatalog` fetches all pages, keeps them in a JSON file in the data
folder, and answers from that file when the registry cannot be reached or answers
nonsense (``CatalogResult.offline`` then says why). Entries the app cannot read
are skipped, never fatal. :func:`install_config` turns an entry into a server
setting: npm packages run with ``npx -y``, PyPI ones with ``uvx``, remotes by URL;
the values the registry marks secret are named in the setting, so that saving it
puts them in the secret store (header values always go there).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

import httpx
import msgspec

from desktop.core.errors import AssistaError
from desktop.core.proxy import Proxy
from desktop.providers.http_clients import make_async_client
from desktop.tools.mcp.config import McpServerConfig

log = logging.getLogger(__name__)

OFFICIAL_REGISTRY = "https://registry.modelcontextprotocol.io"
REGISTRY_ENV = "ASSISTA_MCP_REGISTRY"  # another registry (a company's subregistry)
#: Stable first; the development path for registries that do not serve v0.1 (404).
LIST_PATHS = ("/v0.1/servers", "/v0/servers")
OFFICIAL_META = "io.modelcontextprotocol.registry/official"
CACHE_FILE = "mcp_catalog.json"
InstallKind = Literal["npm", "pypi", "remote"]
RUNNERS = {"npm": ("npx", ["-y"]), "pypi": ("uvx", [])}


class CatalogError(AssistaError):
    """The catalog could not be fetched and nothing is cached."""


class MissingValues(CatalogError, ValueError):
    """Required inputs of an install were left empty (``params["names"]``)."""


class CatalogInput(msgspec.Struct, frozen=True):
    """A value the user gives when installing: an environment variable, a header,
    or a command-line argument."""

    kind: Literal["env", "header", "arg"]
    name: str
    description: str = ""
    required: bool = False
    secret: bool = False
    default: str = ""
    flag: str = ""  # for a named argument: "--flag"


class CatalogInstall(msgspec.Struct, frozen=True):
    """One way to install a catalog server: a package to run, or a remote URL."""

    kind: InstallKind
    target: str  # the package identifier, or the URL
    version: str = ""
    transport: Literal["stdio", "http", "sse"] = "stdio"
    inputs: tuple[CatalogInput, ...] = ()
    fixed_args: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.kind == "remote":
            return f"{self.transport} {self.target}"
        command, first = RUNNERS[self.kind]
        return " ".join([command, *first, _pinned(self), *self.fixed_args])


class CatalogEntry(msgspec.Struct, frozen=True):
    """One server the MCP registry lists, with its ways to install."""

    name: str  # reverse-DNS, e.g. io.github.user/weather
    description: str
    version: str = ""
    title: str = ""
    website: str = ""
    repository: str = ""
    installs: tuple[CatalogInstall, ...] = ()

    @property
    def short_name(self) -> str:
        """A server name for settings: the part after the slash."""
        return self.name.rsplit("/", 1)[-1] or self.name


class CatalogResult(msgspec.Struct, weakref=True):
    """The catalog's servers, when they were fetched, and why the cache is shown."""

    entries: list[CatalogEntry] = msgspec.field(default_factory=list)
    fetched_at: float = 0.0
    offline: str | None = None  # why the cache is shown instead of the registry


class RegistryCatalog:
    def __init__(self, cache_dir: Path, *, base_url: str = OFFICIAL_REGISTRY,
                 proxy: Proxy | None = None, page_limit: int = 100, max_pages: int = 100,
                 timeout_s: float = 20.0) -> None:
        self.cache_path = cache_dir / CACHE_FILE
        self.base_url = base_url.rstrip("/")
        self.proxy = proxy
        self.page_limit = page_limit
        self.max_pages = max_pages
        self.timeout_s = timeout_s

    def cached(self) -> CatalogResult | None:
        """What the last successful fetch stored, if anything readable."""
        try:
            data = json.loads(self.cache_path.read_text(encoding="utf-8"))
            raw = data["servers"]
            fetched = float(data.get("fetched_at", 0.0))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if not isinstance(raw, list):
            return None
        return CatalogResult(parse_entries(raw), fetched)

    async def refresh(self) -> CatalogResult:
        """Every page from the registry (and the cache written), else the cache with
        the reason; ``CatalogError`` when neither is there."""
        try:
            raw = await self._fetch_all()
        except (httpx.HTTPError, ValueError) as exc:
            reason = _reason(exc)
            log.warning("MCP catalog: %s", reason)
            cached = self.cached()
            if cached is None:
                raise CatalogError(f"The MCP registry could not be read ({reason}) and "
                                   "there is no saved copy yet.",
                                   code="mcp_registry_unreadable",
                                   params={"detail": reason}) from None
            cached.offline = reason
            return cached
        result = CatalogResult(parse_entries(raw), time.time())
        self._save(raw, result.fetched_at)
        return result

    async def _fetch_all(self) -> list[dict[str, Any]]:
        servers: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()  # a registry that hands out a cursor twice would loop
        paths = list(LIST_PATHS)
        async with make_async_client(timeout=self.timeout_s, connect_timeout=self.timeout_s,
                                     proxy=self.proxy) as client:
            for _ in range(self.max_pages):
                params: dict[str, str | int] = {"limit": self.page_limit}
                if cursor:
                    params["cursor"] = cursor
                response = await client.get(self.base_url + paths[0], params=params)
                while response.status_code == 404 and not servers and len(paths) > 1:
                    log.info("MCP catalog: %s not served, asking %s", paths[0], paths[1])
                    paths.pop(0)  # the pages that follow come from the same path
                    response = await client.get(self.base_url + paths[0], params=params)
                response.raise_for_status()
                page = response.json()
                if not isinstance(page, dict) or not isinstance(page.get("servers"), list):
                    raise ValueError("the registry's answer is not a server list")
                servers += [s for s in page["servers"] if isinstance(s, dict)]
                metadata = page.get("metadata")
                cursor = metadata.get("nextCursor") if isinstance(metadata, dict) else None
                if not cursor or not isinstance(cursor, str) or cursor in seen:
                    return servers
                seen.add(cursor)
        log.warning("MCP catalog: stopped after %d pages", self.max_pages)
        return servers

    def _save(self, raw: list[dict[str, Any]], fetched_at: float) -> None:
        text = json.dumps({"fetched_at": fetched_at, "source": self.base_url,
                           "servers": raw}, ensure_ascii=False)
        try:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.cache_path.parent, prefix=".catalog-")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, self.cache_path)
        except OSError as exc:
            log.warning("MCP catalog: could not save the copy: %s", exc)


def parse_entries(raw: list[Any]) -> list[CatalogEntry]:
    """Entries from the registry's ``servers`` items: the latest version of each,
    deleted ones and ones that cannot be read left out (sorted by name)."""
    latest: dict[str, CatalogEntry] = {}
    for item in raw:
        try:
            entry, is_latest, status = _entry(item)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            log.info("MCP catalog: skipping an entry that cannot be read (%s)", exc)
            continue
        if status == "deleted":
            latest.pop(entry.name, None)
            continue
        if is_latest or entry.name not in latest:
            latest[entry.name] = entry
    return sorted(latest.values(), key=lambda e: e.name.lower())


def _entry(item: Any) -> tuple[CatalogEntry, bool, str]:
    server = item.get("server", item)  # older pages were flat
    official = (item.get("_meta") or {}).get(OFFICIAL_META) or {}
    name = str(server["name"])
    if not name.strip():
        raise ValueError("no name")
    repository = server.get("repository") or {}
    installs = [i for p in server.get("packages") or [] if (i := _package(p)) is not None]
    installs += [i for r in server.get("remotes") or [] if (i := _remote(r)) is not None]
    entry = CatalogEntry(
        name=name, description=str(server.get("description") or ""),
        version=str(server.get("version") or ""), title=str(server.get("title") or ""),
        website=str(server.get("websiteUrl") or ""),
        repository=str(repository.get("url") or "") if isinstance(repository, dict) else "",
        installs=tuple(installs))
    return entry, bool(official.get("isLatest", False)), str(official.get("status") or "active")


def _input(kind: Literal["env", "header", "arg"], raw: dict[str, Any]) -> CatalogInput:
    return CatalogInput(kind=kind, name=str(raw.get("name") or raw.get("valueHint") or ""),
                        description=str(raw.get("description") or ""),
                        required=bool(raw.get("isRequired", False)),
                        secret=bool(raw.get("isSecret", False)),
                        default=str(raw.get("default") or ""),
                        flag=str(raw.get("name") or "") if raw.get("type") == "named" else "")


def _package(raw: dict[str, Any]) -> CatalogInstall | None:
    kind = str(raw.get("registryType") or "")
    transport = (raw.get("transport") or {}).get("type", "stdio")
    if kind not in RUNNERS or transport != "stdio" or not raw.get("identifier"):
        return None  # oci, nuget, mcpb, or a package serving HTTP: not installable by click
    inputs = [_input("env", e) for e in raw.get("environmentVariables") or []]
    fixed: list[str] = []
    for argument in raw.get("packageArguments") or []:
        value = argument.get("value")
        if value is not None:
            flag = argument.get("name") if argument.get("type") == "named" else None
            fixed += [str(flag), str(value)] if flag else [str(value)]
        else:
            inputs.append(_input("arg", argument))
    return CatalogInstall(kind=kind, target=str(raw["identifier"]),  # type: ignore[arg-type]
                          version=str(raw.get("version") or ""), inputs=tuple(inputs),
                          fixed_args=tuple(fixed))


def _remote(raw: dict[str, Any]) -> CatalogInstall | None:
    kind = raw.get("type")
    url = str(raw.get("url") or "")
    if kind not in ("streamable-http", "sse") or not url.startswith(("http://", "https://")):
        return None  # URL templates with variables are not filled in here
    inputs = tuple(_input("header", h) for h in raw.get("headers") or [])
    return CatalogInstall(kind="remote", target=url, inputs=inputs,
                          transport="http" if kind == "streamable-http" else "sse")


def _pinned(install: CatalogInstall) -> str:
    if not install.version:
        return install.target
    return f"{install.target}{'==' if install.kind == 'pypi' else '@'}{install.version}"


def install_config(install: CatalogInstall, name: str,
                   values: dict[str, str]) -> McpServerConfig:
    """A server setting from a catalog entry's install and the user's ``values``
    (by input name); ``ValueError`` names a required value left empty."""
    given = {i.name: (values.get(i.name) or i.default).strip() for i in install.inputs}
    missing = [i.name for i in install.inputs if i.required and not given[i.name]]
    if missing:
        raise MissingValues(
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} required",
            code="catalog_values_missing", params={"names": ", ".join(missing)})
    if install.kind == "remote":
        headers = {i.name: given[i.name] for i in install.inputs if given[i.name]}
        return McpServerConfig(name=name, transport=install.transport, url=install.target,
                               headers=headers)
    command, first = RUNNERS[install.kind]
    args = [*first, _pinned(install), *install.fixed_args]
    secret_args: list[int] = []  # the settings keep them in the secret store
    for item in install.inputs:
        if item.kind == "arg" and given[item.name]:
            args += [item.flag] if item.flag else []
            secret_args += [len(args)] if item.secret else []
            args.append(given[item.name])
    env = {i.name: given[i.name] for i in install.inputs if i.kind == "env" and given[i.name]}
    secret_env = [i.name for i in install.inputs if i.kind == "env" and i.secret]
    return McpServerConfig(name=name, command=command, args=args, env=env,
                           secret_env=secret_env, secret_args=secret_args)


def _reason(exc: Exception) -> str:
    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code}"
    if isinstance(exc, httpx.TimeoutException):
        return "it did not answer in time"
    if isinstance(exc, httpx.HTTPError):
        return f"cannot connect: {type(exc).__name__}"
    if isinstance(exc, json.JSONDecodeError):
        return "its answer is not JSON"
    return str(exc)
