"""Packaging tests: the scripts in packaging/ import each other as top-level modules.

Tests marked ``build`` build the real bundle and installers (minutes): they run only
with ``ASSISTA_BUILD_TESTS=1`` (see packaging/README.md), never in the default run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

PACKAGING = Path(__file__).resolve().parents[2] / "packaging"
if str(PACKAGING) not in sys.path:
    sys.path.insert(0, str(PACKAGING))

BUILD_ENV = "ASSISTA_BUILD_TESTS"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"build: builds the real bundle and installers (opt in: {BUILD_ENV}=1)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(BUILD_ENV) == "1":
        return
    skip = pytest.mark.skip(reason=f"builds the bundle (minutes); set {BUILD_ENV}=1 to run")
    for item in items:
        if item.get_closest_marker("build") is not None:
            item.add_marker(skip)
