"""The app's runtime dependency closure, from the installed distribution metadata.

The spec uses :func:`bundled_distributions` to give every bundled package its metadata
and data files (ziamath's math font, say) without naming them, and
:func:`outside_closure` to leave out what only the tools need; the build uses
:func:`undeclared` to warn about packages the code imports but ``pyproject.toml`` does
not declare. :func:`runtime_closure` follows ``Requires-Dist`` with environment markers
evaluated for this machine and no extras except those the parent asked for.
"""

from __future__ import annotations

import importlib.metadata as md
import re
from collections.abc import Iterable

from packaging.requirements import Requirement


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_closure(root: str) -> list[md.Distribution]:
    """``root`` and every distribution it needs at run time on this machine."""
    found: dict[str, md.Distribution] = {}
    visited: set[tuple[str, frozenset[str]]] = set()
    queue: list[tuple[str, frozenset[str]]] = [(root, frozenset())]
    while queue:
        name, extras = queue.pop()
        if (_canonical(name), extras) in visited:
            continue
        visited.add((_canonical(name), extras))
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue  # e.g. a Windows-only dependency on Linux
        found[_canonical(name)] = dist
        envs = [{"extra": extra} for extra in sorted(extras)] or [{"extra": ""}]
        for text in dist.requires or ():
            req = Requirement(text)
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                queue.append((req.name, frozenset(req.extras)))
    return sorted(found.values(), key=lambda d: _canonical(d.metadata["Name"]))


def top_level_packages(dist: md.Distribution) -> list[str]:
    """Import names a distribution installs (``top_level.txt``, else its file list)."""
    text = dist.read_text("top_level.txt")
    if text:
        return sorted({line.strip() for line in text.splitlines() if line.strip()})
    names = set()
    for file in dist.files or ():
        parts = file.parts
        if len(parts) > 1 and not parts[0].endswith((".dist-info", ".data")):
            names.add(parts[0])
        elif len(parts) == 1 and parts[0].endswith(".py"):
            names.add(parts[0][:-3])
    return sorted(n for n in names if n.isidentifier() and n != "__pycache__")


def bundled_distributions(top_levels: Iterable[str], skip: Iterable[str] = ()
                          ) -> dict[str, list[str]]:
    """Distribution name -> its import names, for distributions providing ``top_levels``."""
    skipped = {_canonical(s) for s in skip}
    providers = md.packages_distributions()
    found: dict[str, list[str]] = {}
    for top in sorted(set(top_levels)):
        for dist_name in providers.get(top, ()):
            tops = found.setdefault(dist_name, []) if _canonical(dist_name) not in skipped else []
            if top not in tops:
                tops.append(top)
    return found


def outside_closure(root: str) -> list[str]:
    """Import names of the installed distributions ``root`` does not need at run time
    (the test and build tools, and what they pulled in: lxml from python-docx, say).
    The bundle leaves them out, so it holds what installing the app alone installs: an
    optional import of one (openpyxl tries lxml, httpcore sniffio) finds nothing in the
    bundle, as in a clean install. Never a standard-library name, never one a needed
    distribution provides too."""
    import sys

    needed = {_canonical(d.metadata["Name"]) for d in runtime_closure(root)}
    kept: set[str] = set()
    other: set[str] = set()
    for dist in md.distributions():
        tops = top_level_packages(dist)
        (kept if _canonical(dist.metadata["Name"]) in needed else other).update(tops)
    return sorted(other - kept - set(sys.stdlib_module_names))


def undeclared(root: str, top_levels: Iterable[str]) -> list[str]:
    """Bundled distributions that are not in ``root``'s runtime closure (pyproject)."""
    declared = {_canonical(d.metadata["Name"]) for d in runtime_closure(root)}
    return sorted(name for name in bundled_distributions(top_levels)
                  if _canonical(name) not in declared)


def not_installed_as_declared(root: str, declared: Iterable[str]) -> list[str]:
    """The dependencies ``declared`` in ``pyproject.toml`` that ``root``'s installed
    metadata does not require: the metadata predates the declaration (the venv's
    install was not redone since, see ``packaging/dev.py``), and a bundle built from it
    would leave them out."""
    try:
        installed = md.distribution(root).requires or []
    except md.PackageNotFoundError:
        return sorted(Requirement(text).name for text in declared)
    required = {_canonical(Requirement(text).name) for text in installed}
    return sorted(name for name in (Requirement(text).name for text in declared)
                  if _canonical(name) not in required)
