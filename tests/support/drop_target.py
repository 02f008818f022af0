"""A sync target that exists only in the tests, written as a newcomer would write one:
this module, and one line in ``desktop.sync.targets.registry.TARGETS``. A ``drop://name``
URL names a folder under :attr:`DropTarget.root`, opened only with its token (the
target's secret, kept in the keyring under its own id)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import urlsplit

from desktop.sync.errors import SyncError
from desktop.sync.targets.folder import FolderTarget

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy

REGISTRATION = (("drop",), "tests.support.drop_target:DropTarget")
TOKEN_ID = "sync:drop-token"


class DropTarget(FolderTarget):
    url_form = "drop://name"
    secret_id = TOKEN_ID
    fields = frozenset({"secret"})
    required = frozenset({"secret"})
    root: ClassVar[Path] = Path()  # (set by the test)
    opened_with: ClassVar[list[str | None]] = []

    @classmethod
    def from_url(cls, url: str, environ: Mapping[str, str], *, password: str | None = None,
                 proxy: Proxy | None = None) -> DropTarget:
        cls.opened_with.append(password)
        if not password:
            raise SyncError("The drop target needs its token.")
        folder = cls.root / urlsplit(url).netloc
        folder.mkdir(parents=True, exist_ok=True)
        return cls(folder)
