"""The kinds of sync target, one registration line each.

A target's facts are on its class (:class:`~desktop.sync.targets.base.TargetFacts`):
how its URL is written, which secret it keeps in the keyring, which fields the Sync
settings show, how it is opened from a URL or from those settings. The line here
names its URL schemes (the first is its kind) and its class, imported on first use
(the HTTP targets load httpx and their signing: the window reads the sync settings at
start-up without them). A new target is its module plus one line in :data:`TARGETS`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.sync.targets.base import TargetFacts

__all__ = ["TARGETS", "kind_of_scheme", "target_class", "target_classes", "url_forms"]

#: One line per target: its URL schemes (the first names the kind), ``module:Class``.
TARGETS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("file",), "desktop.sync.targets.folder:FolderTarget"),
    (("webdav", "webdavs"), "desktop.sync.targets.webdav:WebDavTarget"),
    (("s3",), "desktop.sync.targets.s3:S3Target"),
)


def kind_of_scheme(scheme: str) -> str:
    """The kind of target a URL scheme names (``webdavs`` -> ``webdav``); "" if none."""
    scheme = scheme.lower()
    return next((schemes[0] for schemes, _ in TARGETS if scheme in schemes), "")


def target_class(kind_or_scheme: str) -> type[TargetFacts] | None:
    kind = kind_of_scheme(kind_or_scheme)
    path = next((path for schemes, path in TARGETS if schemes[0] == kind), None)
    if path is None:
        return None
    module_name, _, class_name = path.partition(":")
    cls: type[TargetFacts] = getattr(importlib.import_module(module_name), class_name)
    return cls


def target_classes() -> list[type[TargetFacts]]:
    found = (target_class(schemes[0]) for schemes, _ in TARGETS)
    return [cls for cls in found if cls is not None]


def url_forms() -> str:
    """``file:///path, webdav(s)://user@host/path or s3://bucket/prefix``."""
    forms = [cls.url_form for cls in target_classes()]
    return ", ".join(forms[:-1]) + f" or {forms[-1]}" if len(forms) > 1 else "".join(forms)
