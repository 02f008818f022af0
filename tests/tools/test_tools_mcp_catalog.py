"""The MCP catalog against a loopback registry in the official API's format:
pagination by cursor, latest versions, malformed answers and entries, an
unreachable registry answered from the saved copy, and install settings."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from desktop.tools.mcp.catalog import CatalogError, RegistryCatalog, install_config
from tests.support.mcp_registry_server import (
    FILESYSTEM,
    HOSTED,
    WEATHER,
    RegistryServer,
    listing,
    registry_server,
)


def old(server: dict[str, Any]) -> dict[str, Any]:
    return dict(server, version="0.0.1", description="an old version")


PAGES: list[list[Any]] = [[listing(FILESYSTEM), listing(old(WEATHER), latest=False)],
         [listing(WEATHER), {"server": {"description": "no name"}}, "not an object"],
         [listing(HOSTED), listing(dict(HOSTED, name="com.example/gone"), status="deleted")]]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_all_pages_latest_versions_and_the_saved_copy(tmp_path: Path) -> None:
    with registry_server(RegistryServer(pages=PAGES)) as registry:
        catalog = RegistryCatalog(tmp_path, base_url=registry.url, page_limit=2)
        result = await catalog.refresh()
    assert [q.get("cursor") for q in registry.queries] == [None, ["page=1"], ["page=2"]]
    assert all(q["limit"] == ["2"] for q in registry.queries)
    assert result.offline is None
    names = [e.name for e in result.entries]
    assert names == ["com.example/hosted", "io.github.example/filesystem",
                     "io.github.example/weather"]
    weather = result.entries[2]
    assert weather.version == "0.3.1" and weather.description == "Forecasts"
    assert weather.installs[0].describe() == "uvx weather-mcp==0.3.1 --units metric"
    assert catalog.cached() is not None
    assert [e.name for e in catalog.cached().entries] == names  # type: ignore[union-attr]


async def test_offline_and_malformed_answers_use_the_saved_copy(tmp_path: Path) -> None:
    with registry_server(RegistryServer(pages=PAGES[:1])) as registry:
        await RegistryCatalog(tmp_path, base_url=registry.url).refresh()

    unreachable = RegistryCatalog(tmp_path, base_url=f"http://127.0.0.1:{free_port()}")
    result = await unreachable.refresh()
    assert result.offline is not None and result.offline.startswith("cannot connect")
    assert [e.short_name for e in result.entries] == ["filesystem", "weather"]

    for raw, status, reason in ((b"<html>oops</html>", 200, "its answer is not JSON"),
                                (b'{"servers": 3}', 200, "not a server list"),
                                (b'{"error": "down"}', 503, "HTTP 503")):
        with registry_server(RegistryServer(raw=raw, status=status)) as registry:
            result = await RegistryCatalog(tmp_path, base_url=registry.url).refresh()
        assert result.offline is not None and reason in result.offline
        assert len(result.entries) == 2


async def test_nothing_saved_and_unreachable_is_a_clear_error(tmp_path: Path) -> None:
    catalog = RegistryCatalog(tmp_path, base_url=f"http://127.0.0.1:{free_port()}")
    with pytest.raises(CatalogError, match=r"could not be read .* no saved copy yet"):
        await catalog.refresh()
    (tmp_path / "mcp_catalog.json").write_text("{broken", encoding="utf-8")
    assert catalog.cached() is None


def test_install_settings_for_npm_pypi_and_remote(tmp_path: Path) -> None:
    from desktop.tools.mcp.catalog import parse_entries

    hosted, files, weather = parse_entries([listing(HOSTED), listing(FILESYSTEM),
                                            listing(WEATHER)])
    npm = files.installs[0]
    assert [(i.kind, i.name, i.required, i.secret) for i in npm.inputs] == [
        ("env", "FS_TOKEN", True, True), ("arg", "folder", True, False)]
    with pytest.raises(ValueError, match="FS_TOKEN, folder are required"):
        install_config(npm, "filesystem", {})
    config = install_config(npm, "filesystem", {"FS_TOKEN": "t0k", "folder": "/notes"})
    assert (config.command, config.args) == ("npx", ["-y", "@example/server-filesystem@1.2.0",
                                                     "/notes"])
    assert config.env == {"FS_TOKEN": "t0k"}

    config = install_config(weather.installs[0], "weather", {})
    assert (config.command, config.args) == ("uvx", ["weather-mcp==0.3.1", "--units", "metric"])

    remote = hosted.installs[0]
    config = install_config(remote, "hosted", {"X-Api-Key": "k"})
    assert (config.transport, config.url, config.headers) == (
        "http", "https://mcp.example.com/mcp", {"X-Api-Key": "k"})
    assert install_config(remote, "hosted", {}).headers == {}


async def test_a_cursor_handed_out_twice_ends_the_listing(tmp_path: Path) -> None:
    page = {"servers": [listing(WEATHER)], "metadata": {"nextCursor": "again"}}
    with registry_server(RegistryServer(raw=json.dumps(page).encode())) as registry:
        result = await RegistryCatalog(tmp_path, base_url=registry.url).refresh()
    assert [q.get("cursor") for q in registry.queries] == [None, ["again"]]
    assert [e.short_name for e in result.entries] == ["weather"]


async def test_the_stable_path_first_and_the_development_one_on_404(tmp_path: Path) -> None:
    """v0.1 is the frozen API the registry's OpenAPI lists; a registry serving only
    /v0 (answering 404 to v0.1) is read from /v0 for every page; one serving neither
    is offline with the HTTP status."""
    with registry_server(RegistryServer(pages=PAGES)) as registry:
        await RegistryCatalog(tmp_path, base_url=registry.url, page_limit=2).refresh()
    assert registry.asked == ["/v0.1/servers"] * 3

    only_v0 = RegistryServer(pages=PAGES, paths=("/v0/servers",))
    with registry_server(only_v0) as registry:
        result = await RegistryCatalog(tmp_path, base_url=registry.url).refresh()
    assert registry.asked == ["/v0.1/servers", "/v0/servers", "/v0/servers", "/v0/servers"]
    assert result.offline is None and len(result.entries) == 3

    with registry_server(RegistryServer(pages=PAGES, paths=())) as registry:
        result = await RegistryCatalog(tmp_path, base_url=registry.url).refresh()
    assert registry.asked == ["/v0.1/servers", "/v0/servers"]
    assert result.offline == "HTTP 404" and len(result.entries) == 3  # the saved copy
