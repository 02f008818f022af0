"""Which shared libraries the Linux bundle carries, and which it takes from the system.

* :func:`prune_binaries` runs inside the spec: it removes the libraries that
  :data:`bundle_policy.LINUX_SYSTEM_LIBS` says must come from the system, then every
  library no longer reachable (through ``DT_NEEDED``) from an extension module, a Qt
  plugin or the Python library — e.g. libsystemd and libgcrypt, which were only there
  for libdbus.
* :func:`system_needs` and :func:`floors` run on a built bundle: the sonames it needs
  but does not carry (these become the .deb ``Depends:``) and the glibc / libstdc++
  versions it needs (its floor: it only starts where these are at least as new).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePath

from bundle_policy import is_linux_system_lib
from elf import ElfInfo, highest_version, is_elf, read_elf

TocEntry = tuple[str, str, str]  # PyInstaller TOC: (dest name, source path, type code)
_SHARED_LIB = re.compile(r"^lib.+\.so(\.\d+)*$")
_PYTHON_EXT = re.compile(r"\.(cpython-\d+[^.]*|abi3)\.so$")


def _is_root(dest: str) -> bool:
    """Binaries kept whatever links to them: Python extensions, Qt plugins, libpython."""
    posix = PurePath(dest).as_posix()
    name = PurePath(dest).name
    return (
        bool(_PYTHON_EXT.search(name))
        or "/plugins/" in f"/{posix}"
        or name.startswith("libpython")
        or not _SHARED_LIB.match(name)
    )


def prune_binaries(binaries: Sequence[TocEntry]) -> tuple[list[TocEntry], list[str]]:
    """(kept entries, dropped destination names) for a Linux Analysis.binaries TOC."""
    dropped: list[str] = []
    candidates: list[TocEntry] = []
    for entry in binaries:
        if is_linux_system_lib(PurePath(entry[0]).name):
            dropped.append(entry[0])
        else:
            candidates.append(entry)
    by_name: dict[str, list[TocEntry]] = {}
    for entry in candidates:
        by_name.setdefault(PurePath(entry[0]).name, []).append(entry)
    reached: set[str] = set()
    queue = [entry for entry in candidates if _is_root(entry[0])]
    while queue:
        entry = queue.pop()
        if entry[0] in reached:
            continue
        reached.add(entry[0])
        source = Path(entry[1])
        info = read_elf(source) if source.is_file() and is_elf(source) else None
        for needed in info.needed if info else ():
            queue.extend(by_name.get(needed, ()))
    kept = [entry for entry in candidates if entry[0] in reached]
    dropped += [entry[0] for entry in candidates if entry[0] not in reached]
    return kept, sorted(dropped)


def scan_bundle(bundle: Path) -> list[ElfInfo]:
    """ELF facts for every regular ELF file in the bundle (symlinks skipped)."""
    infos = []
    for path in sorted(bundle.rglob("*")):
        if path.is_file() and not path.is_symlink() and is_elf(path):
            info = read_elf(path)
            if info is not None:
                infos.append(info)
    return infos


def carried_names(bundle: Path, infos: Iterable[ElfInfo]) -> set[str]:
    names = {path.name for path in bundle.rglob("*") if path.is_file()}
    names.update(info.soname for info in infos if info.soname)
    return names


def system_needs(bundle: Path, infos: Sequence[ElfInfo] | None = None) -> dict[str, list[str]]:
    """Soname -> bundle files (relative) that need it, for sonames the bundle lacks."""
    infos = scan_bundle(bundle) if infos is None else infos
    carried = carried_names(bundle, infos)
    needs: dict[str, list[str]] = {}
    for info in infos:
        for soname in info.needed:
            if soname not in carried:
                needs.setdefault(soname, []).append(info.path.relative_to(bundle).as_posix())
    return dict(sorted(needs.items()))


def floors(infos: Sequence[ElfInfo]) -> dict[str, str | None]:
    """Highest GLIBC_ and GLIBCXX_ symbol versions required (None when not required)."""
    return {"GLIBC": highest_version(infos, "GLIBC"), "GLIBCXX": highest_version(infos, "GLIBCXX")}
