"""Figures about a built bundle: total size, largest items, file count, glibc floor."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class BundleFigures:
    root: Path
    total_bytes: int
    files: int
    largest_files: list[tuple[str, int]]  #: (relative path, bytes), largest first
    largest_groups: list[tuple[str, int]]  #: top-level folders/packages, largest first
    floors: dict[str, str | None] = field(default_factory=dict)


_PREFIXES = (("_internal",), ("Contents", "Frameworks"), ("Contents", "Resources"))


def _group(relative: Path) -> str:
    """The item a file belongs to: a top-level package or library, or a Qt folder.

    ``_internal/PySide6/Qt/lib/libQt6Gui.so.6`` -> ``_internal/PySide6/Qt/lib``;
    ``_internal/pydantic_core/x.so`` -> ``_internal/pydantic_core``.
    """
    parts = relative.parts
    prefix: tuple[str, ...] = next((p for p in _PREFIXES if parts[: len(p)] == p), ())
    rest = parts[len(prefix):]
    keep = 3 if rest[:2] == ("PySide6", "Qt") and len(rest) > 3 else 1
    return "/".join((*prefix, *rest[:keep]))


def measure(root: Path, top: int = 10) -> BundleFigures:
    sizes: dict[str, int] = {}
    groups: dict[str, int] = {}
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            rel = path.relative_to(root)
            size = path.stat().st_size
            sizes[rel.as_posix()] = size
            key = _group(rel)
            groups[key] = groups.get(key, 0) + size
    figures = BundleFigures(
        root=root,
        total_bytes=sum(sizes.values()),
        files=len(sizes),
        largest_files=sorted(sizes.items(), key=lambda kv: -kv[1])[:top],
        largest_groups=sorted(groups.items(), key=lambda kv: -kv[1])[:top],
    )
    if sys.platform.startswith("linux"):
        import linux_libs

        figures.floors = linux_libs.floors(linux_libs.scan_bundle(root))
    return figures


def mib(size: int) -> str:
    return f"{size / 1048576:.1f} MiB"


def format_figures(figures: BundleFigures) -> str:
    lines = [f"bundle {figures.root}: {mib(figures.total_bytes)} in {figures.files} files"]
    lines.append("ten largest files:")
    lines += [f"  {mib(size):>10}  {name}" for name, size in figures.largest_files]
    lines.append("ten largest items (folders / packages):")
    lines += [f"  {mib(size):>10}  {name}" for name, size in figures.largest_groups]
    if figures.floors:
        glibc = figures.floors.get("GLIBC") or "none"
        cxx = figures.floors.get("GLIBCXX") or "none"
        lines.append(f"needs at least: {glibc} (glibc), {cxx} (system libstdc++)")
    return "\n".join(lines)
