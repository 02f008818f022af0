"""Locating the top-level ``resources/`` folder in a source tree or a bundle."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path | None:
    candidates = []
    bundle = getattr(sys, "_MEIPASS", None)  # PyInstaller one-folder bundle
    if bundle:
        candidates.append(Path(bundle) / "resources")
    candidates.append(Path(__file__).resolve().parent.parent / "resources")
    candidates.append(Path(sys.prefix) / "share" / "assista-desktop" / "resources")
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return None


def icon_path() -> Path | None:
    folder = resources_dir()
    if folder is None:
        return None
    icon = folder / "icons" / "assista.svg"
    return icon if icon.is_file() else None
