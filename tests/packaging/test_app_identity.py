"""The version comes from pyproject.toml only; every installer derives its form from it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import app_identity
import pytest
from app_identity import Identity

import desktop

ROOT = Path(__file__).resolve().parents[2]


def test_version_is_read_from_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    ident = app_identity.identity()
    assert ident.version == project["version"]
    assert ident.name == project["name"]


def test_the_app_reports_the_same_version() -> None:
    # desktop.__version__ comes from the installed metadata (pip install -e .), which
    # was generated from the same pyproject.toml.
    assert desktop.__version__ == app_identity.identity().version
    assert desktop.APP_ID == app_identity.APP_ID
    assert desktop.APP_NAME == app_identity.APP_NAME


@pytest.mark.parametrize(
    ("version", "numeric", "deb"),
    [
        ("0.1.0", (0, 1, 0, 0), "0.1.0"),
        ("1.2", (1, 2, 0, 0), "1.2"),
        ("2.0.1rc1", (2, 0, 1, 0), "2.0.1~rc1"),
        ("1.0.dev3", (1, 0, 0, 0), "1.0~dev3"),
        ("1.4.2.7", (1, 4, 2, 7), "1.4.2.7"),
        ("3.1+local", (3, 1, 0, 0), "3.1+local"),
    ],
)
def test_version_forms(version: str, numeric: tuple[int, ...], deb: str) -> None:
    ident = Identity(name="x", version=version, description="", license="MIT")
    assert ident.numeric_version == numeric
    assert ident.dotted_numeric == ".".join(map(str, numeric))
    assert ident.deb_version == deb
