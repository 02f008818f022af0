"""A package's names loaded on first use: the one lazy entry point of a feature.

A feature package (knowledge, skills, projects, sync, the chat's own features, ...)
lists what it offers and the module defining each name; callers import the package at
their top and use ``package.Name`` where needed, and the module is imported then, not
with the package (PEP 562's module ``__getattr__``)::

    __getattr__ = lazy_names(__name__, {"Name": "desktop.feature.module"}, globals())

A name that is a submodule's own name (``{"attach_filters":
"desktop.ui.chat.attach_filters"}``) is that module.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, table: Mapping[str, str],
               namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package`` (its ``namespace``: ``globals()``) for the
    names in ``table``; each is kept in the namespace once loaded."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = importlib.import_module(module)
        value = loaded if module == f"{package}.{name}" else getattr(loaded, name)
        namespace[name] = value
        return value

    return __getattr__
