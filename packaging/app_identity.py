"""The app's identity for every installer: names, ids and the version from pyproject.toml.

``pyproject.toml`` is the one place the version is written. The running app reads it
from the installed metadata (``desktop.__version__`` via importlib.metadata; the
bundle carries that metadata); the packaging scripts read it here.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"

APP_NAME = "Assista"  #: shown to users (menus, window title, installer)
DISPLAY_NAME = "Assista Desktop"
APP_ID = "assista-desktop"  #: desktop-file id, icon name, Wayland app_id (desktop.APP_ID)
EXECUTABLE = "assista"  #: command and bundle executable
DEB_PACKAGE = "assista"
BUNDLE_ID = "org.assista.desktop"  #: macOS CFBundleIdentifier (change when the domain exists)
PUBLISHER = "Assista project"
HOMEPAGE = "https://github.com/assista/assista-desktop"
MAINTAINER = "Assista maintainers <maintainers@assista.invalid>"


@dataclass(frozen=True)
class Identity:
    name: str  #: distribution name in pyproject
    version: str  #: PEP 440 version from pyproject
    description: str
    license: str

    @property
    def numeric_version(self) -> tuple[int, int, int, int]:
        """``1.2.3rc1`` -> (1, 2, 3, 0): the four numbers Windows version resources need."""
        release = re.match(r"\d+(?:\.\d+)*", self.version)
        parts = [int(p) for p in release.group(0).split(".")] if release else []
        parts = [*parts, 0, 0, 0, 0][:4]
        return parts[0], parts[1], parts[2], parts[3]

    @property
    def dotted_numeric(self) -> str:
        return ".".join(str(n) for n in self.numeric_version)

    @property
    def deb_version(self) -> str:
        """PEP 440 -> Debian ordering: ``1.0rc1`` -> ``1.0~rc1``, ``1.0.dev2`` -> ``1.0~dev2``
        (``~`` sorts before the release); a local part ``+x`` is valid as it is."""
        public, plus, local = self.version.partition("+")
        public = re.sub(r"^(\d+(?:\.\d+)*)\.?(a|b|rc|dev)(\d*)", r"\1~\2\3", public)
        return public + plus + local


@cache
def _project(pyproject: Path) -> dict[str, object]:
    """The ``[project]`` table of ``pyproject`` (read once)."""
    project: dict[str, object] = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    return project


@cache
def identity(pyproject: Path = PYPROJECT) -> Identity:
    project = _project(pyproject)
    licence = project.get("license", "")
    if isinstance(licence, dict):
        licence = licence.get("text", "")
    return Identity(
        name=str(project["name"]),
        version=str(project["version"]),
        description=str(project.get("description", "")),
        license=str(licence),
    )


def dependencies(pyproject: Path = PYPROJECT) -> list[str]:
    """The runtime dependencies ``pyproject.toml`` declares (PEP 508 strings)."""
    declared = _project(pyproject).get("dependencies", [])
    return [str(item) for item in declared] if isinstance(declared, list) else []
