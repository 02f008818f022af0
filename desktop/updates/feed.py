"""A release feed in GitHub's Releases API format, read into what the app offers.

The feed is either one release (``/repos/OWNER/REPO/releases/latest``) or a list of
them (``/releases``). A release has ``tag_name`` (``v1.2.3``), ``name``, ``body`` (the
notes, markdown), ``html_url``, ``draft``, ``prerelease`` and ``assets`` (``name``,
``browser_download_url``). Versions compare as PEP 440 versions (``packaging``), so
``1.10.0`` is newer than ``1.9.2`` and ``1.2.0rc1`` older than ``1.2.0``. Qt-free.
"""

from __future__ import annotations

import json
import platform
import sys
from typing import Any

import msgspec
from packaging.version import InvalidVersion, Version

#: Where the project publishes its releases (Preferences can name another feed).
DEFAULT_FEED_URL = "https://api.github.com/repos/assista/assista-desktop/releases/latest"
MAX_NOTES_CHARS = 20_000

#: Installer file names by platform, best first (what packaging/build.py produces).
_ASSET_PATTERNS = {
    "win32": ("-setup.exe", ".msi", ".exe"),
    "darwin": (".dmg", ".pkg"),
    "linux": (".AppImage", ".deb", ".tar.gz"),
}
_ARCH_WORDS = {
    "x86_64": ("x86_64", "amd64", "x64"), "amd64": ("x86_64", "amd64", "x64"),
    "arm64": ("arm64", "aarch64"), "aarch64": ("arm64", "aarch64"),
}


class FeedError(Exception):
    """The feed could not be read or is not a release feed (a sentence for the user)."""


class Release(msgspec.Struct, frozen=True):
    """A release in the update feed: its version, notes and this platform's download."""

    version: Version
    tag: str
    title: str
    notes: str  # markdown from the feed; shown as plain text
    page_url: str
    download_url: str  # this platform's installer, else the release page
    asset_name: str
    prerelease: bool


def parse_feed(data: bytes, *, system: str | None = None,
               machine: str | None = None) -> list[Release]:
    """Every usable release in the feed (drafts and unversioned tags left out);
    raises FeedError when it is not a release feed at all."""
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, ValueError) as exc:
        raise FeedError(f"the release feed is not JSON ({exc})") from exc
    items = document if isinstance(document, list) else [document]
    if not items or not all(isinstance(item, dict) for item in items):
        raise FeedError("the release feed holds no releases")
    if isinstance(document, dict) and "tag_name" not in document:
        message = document.get("message")
        raise FeedError(f"the release feed says: {message}" if isinstance(message, str)
                        else "the release feed has no tag_name")
    releases = []
    for item in items:
        release = _release(item, system or sys.platform, machine or platform.machine())
        if release is not None:
            releases.append(release)
    return releases


def _release(item: dict[str, Any], system: str, machine: str) -> Release | None:
    tag = item.get("tag_name")
    if not isinstance(tag, str) or item.get("draft") is True:
        return None
    try:
        version = Version(tag.strip().removeprefix("v").removeprefix("V"))
    except InvalidVersion:
        return None
    page = _text(item.get("html_url"))
    assets = item.get("assets") if isinstance(item.get("assets"), list) else []
    asset_name, download = choose_asset(assets or [], system, machine)
    notes = _text(item.get("body"))
    if len(notes) > MAX_NOTES_CHARS:
        notes = notes[:MAX_NOTES_CHARS].rstrip() + "\n…"
    return Release(version=version, tag=tag, title=_text(item.get("name")) or tag,
                   notes=notes, page_url=_web_url(page),
                   download_url=_web_url(download) or _web_url(page),
                   asset_name=asset_name, prerelease=item.get("prerelease") is True)


def choose_asset(assets: list[Any], system: str, machine: str) -> tuple[str, str]:
    """``(name, url)`` of the installer for this platform and processor ("" when the
    release has none)."""
    key = "win32" if system.startswith("win") else "darwin" if system == "darwin" else "linux"
    words = _ARCH_WORDS.get(machine.lower(), (machine.lower(),))
    other_arches = {w for ws in _ARCH_WORDS.values() for w in ws} - set(words)
    candidates: list[tuple[int, int, str, str]] = []
    for asset in assets:
        if not isinstance(asset, dict):
            continue
        name, url = _text(asset.get("name")), _text(asset.get("browser_download_url"))
        if not name or not url:
            continue
        for rank, suffix in enumerate(_ASSET_PATTERNS[key]):
            if name.endswith(suffix):
                lowered = name.lower()
                if any(word in lowered for word in other_arches) and \
                        not any(word in lowered for word in words):
                    break  # built for another processor
                arch_rank = 0 if any(word in lowered for word in words) else 1
                candidates.append((rank, arch_rank, name, url))
                break
    if not candidates:
        return "", ""
    _rank, _arch, name, url = min(candidates)
    return name, url


def newest(releases: list[Release], current: str, *,
           prereleases: bool = False) -> Release | None:
    """The newest release newer than ``current`` (pre-releases only when asked, or
    when the running version is one itself)."""
    try:
        running = Version(current)
    except InvalidVersion:
        return None
    allow_pre = prereleases or running.is_prerelease
    offered = [r for r in releases if allow_pre or not (r.prerelease or r.version.is_prerelease)]
    best = max(offered, key=lambda r: r.version, default=None)
    return best if best is not None and best.version > running else None


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _web_url(url: str) -> str:
    """Only https (or http) links are offered to open; anything else is dropped."""
    return url if url.lower().startswith(("https://", "http://")) else ""
