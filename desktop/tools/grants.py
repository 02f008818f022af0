"""Persisted "always allow" grants: a small store interface and two implementations.

A grant lets one tool (by the name the model sees, e.g. ``edit_file`` or
``github__create_issue``) run without asking, in every chat, until it is
revoked. A grant with a ``scope`` covers only the calls inside it (a path pattern,
a program or exact command, or a host, see :mod:`desktop.tools.grant_scopes`); the
built-in tools that have scopes are only ever granted with one (a whole-tool grant of
``run_command`` kept by an older version is dropped when the file is read: Settings →
Tools can set its policy to Allow for that).
:class:`GrantStore` is what the executor needs; :class:`MemoryGrantStore`
is for tests and one-off runs, :class:`JsonGrantStore` keeps grants in a JSON file
(written atomically). The settings database can implement the same protocol.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import msgspec

from desktop.tools.grant_scopes import always_needs_scope, scope_matches

log = logging.getLogger(__name__)


class Grant(msgspec.Struct, frozen=True):
    """An "always allow" grant of one tool, within a scope or for the whole tool."""

    tool: str
    granted_at: float
    source: str = "builtin"  # "builtin" or the MCP server's name, for display
    scope: str = ""  # "" for the whole tool

    @property
    def key(self) -> tuple[str, str]:
        return (self.tool, self.scope)


@runtime_checkable
class GrantStore(Protocol):
    def list(self) -> list[Grant]:
        """Every grant, oldest first."""
        ...

    def add(self, tool: str, *, source: str = "builtin", scope: str = "") -> Grant:
        """Grant ``tool`` (within ``scope``); granting it again keeps the first grant."""
        ...

    def revoke(self, tool: str, scope: str = "") -> bool:
        """Remove the grant for ``tool`` (within ``scope``); False if there was none."""
        ...

    def has(self, tool: str) -> bool:
        """Whether the whole tool is granted."""
        ...

    def allows(self, tool: str, args: Mapping[str, Any]) -> bool:
        """Whether the whole tool, or a scope this call falls in, is granted."""
        ...


class MemoryGrantStore:
    """Grants kept in memory only."""

    def __init__(self, grants: list[Grant] | None = None) -> None:
        self._lock = threading.Lock()
        self._grants: dict[tuple[str, str], Grant] = {g.key: g for g in grants or []}

    def list(self) -> list[Grant]:
        with self._lock:
            return sorted(self._grants.values(), key=lambda g: g.granted_at)

    def add(self, tool: str, *, source: str = "builtin", scope: str = "") -> Grant:
        scope = scope.strip()
        if not scope and always_needs_scope(tool, source):
            raise ValueError(f"{tool} is only granted within a scope")
        with self._lock:
            existing = self._grants.get((tool, scope))
            if existing is not None:
                return existing
            grant = Grant(tool=tool, granted_at=time.time(), source=source, scope=scope)
            self._grants[grant.key] = grant
            self._changed()
            return grant

    def revoke(self, tool: str, scope: str = "") -> bool:
        with self._lock:
            if self._grants.pop((tool, scope), None) is None:
                return False
            self._changed()
            return True

    def has(self, tool: str) -> bool:
        with self._lock:
            return (tool, "") in self._grants

    def allows(self, tool: str, args: Mapping[str, Any]) -> bool:
        with self._lock:
            grants = [g for g in self._grants.values() if g.tool == tool]
        return any(not g.scope or scope_matches(tool, g.scope, args) for g in grants)

    def _changed(self) -> None:
        """Called with the lock held after every change (subclasses persist here)."""


class JsonGrantStore(MemoryGrantStore):
    """Grants in a JSON file: ``{"version": 2, "grants": [{tool, granted_at, source, scope}]}``
    (version 1 files, without scopes, read as whole-tool grants).

    The file is read once on construction (a missing or unreadable file means no
    grants; the problem is logged) and rewritten atomically after each change.
    """

    VERSION = 2

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        super().__init__(_load(self.path))

    def _changed(self) -> None:
        payload = {
            "version": self.VERSION,
            "grants": [
                msgspec.structs.asdict(g)
                for g in sorted(self._grants.values(), key=lambda g: g.granted_at)
            ],
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".grants-", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(payload, handle, ensure_ascii=False, indent=2)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _load(path: Path) -> list[Grant]:
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable tool grants file %s: %s", path, exc)
        return []
    grants: list[Grant] = []
    items = raw.get("grants") if isinstance(raw, dict) else None
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("tool"), str):
            continue
        granted_at = item.get("granted_at")
        source = str(item.get("source") or "builtin")
        if item["tool"] == "run_command" and source == "builtin" and not item.get("scope"):
            log.warning("dropping a grant of every command (run_command without a scope)")
            continue
        grants.append(
            Grant(
                tool=item["tool"],
                granted_at=float(granted_at) if isinstance(granted_at, int | float) else 0.0,
                source=source,
                scope=str(item.get("scope") or ""),
            )
        )
    return grants
