"""A feature's own numbered schema migrations, recorded under its name.

Each feature that keeps tables in the database declares one :class:`Migrations` with
its name and its steps numbered from 1 (as simonw/llm's ``Migrations("llm.embeddings")``).
The composition root hands the database every feature's set, in order; a set names
the sets it builds on (``requires``) and must come after them. Applied steps are
recorded in the ``_migrations`` table as ``(name, version)``.

A step is SQL text (one or more statements) or a callable receiving the open
:class:`sqlite3.Connection`. Never edit a released step: append a new one.

Before this, the app kept one counter for all features (the ``schema_migrations``
table, versions 1 to :data:`LEGACY_LATEST`). A step that was once the app-wide
migration N says so (``legacy={its version: N}``): a file whose ``schema_migrations``
records N counts that step as applied, so nothing runs twice. Moving another
app-wide migration into a feature's set is one line: ``legacy={1: N}``, and
:data:`LEGACY_LATEST` raised to N.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

MigrationStep = str | Callable[[sqlite3.Connection], None]

#: The newest version the single app-wide counter (``schema_migrations``) reached.
LEGACY_LATEST = 8

#: The row an upgraded file gets in ``schema_migrations``: versions are kept per feature
#: in ``_migrations`` from then on. An app from before (which knows up to
#: :data:`LEGACY_LATEST`) reads it as a newer schema and refuses the file, unaltered.
FEATURE_FORMAT = 1000


class Migration(NamedTuple):
    version: int
    step: MigrationStep


class Migrations:
    """The numbered migrations of the feature ``name``."""

    def __init__(
        self,
        name: str,
        steps: Sequence[tuple[int, MigrationStep]],
        *,
        legacy: Mapping[int, int] | None = None,
        requires: Sequence[str] = (),
    ) -> None:
        self.name = name
        self.steps: tuple[Migration, ...] = tuple(Migration(int(v), s) for v, s in steps)
        self.legacy: dict[int, int] = dict(legacy or {})
        self.requires = tuple(requires)
        versions = [m.version for m in self.steps]
        if not name or any(v <= 0 for v in versions) or versions != sorted(set(versions)):
            raise ValueError(
                f"migrations {name!r}: versions must be positive and increasing: {versions}")
        if not set(self.legacy) <= set(versions) or \
                any(n <= 0 or n > LEGACY_LATEST for n in self.legacy.values()):
            raise ValueError(f"migrations {name!r}: legacy numbers of unknown steps "
                             f"or beyond {LEGACY_LATEST}: {self.legacy}")

    @property
    def latest(self) -> int:
        return self.steps[-1].version if self.steps else 0

    def __repr__(self) -> str:
        return f"Migrations({self.name!r}, latest={self.latest})"


def checked_sets(sets: Sequence[Migrations]) -> tuple[Migrations, ...]:
    """``sets`` in order, each name once, each after the sets it requires."""
    seen: set[str] = set()
    legacy: list[int] = []
    for item in sets:
        if item.name in seen:
            raise ValueError(f"migrations {item.name!r} are registered twice")
        missing = [name for name in item.requires if name not in seen]
        if missing:
            raise ValueError(f"migrations {item.name!r} need {missing} registered before them")
        seen.add(item.name)
        legacy += item.legacy.values()
    if len(legacy) != len(set(legacy)):
        raise ValueError(f"an app-wide migration is claimed by two sets: {sorted(legacy)}")
    return tuple(sets)
