"""Journeys: the shipped ``assista`` on a real X server with a window manager, driven by
real input, read over AT-SPI, checked against what ``assista export`` says is stored.

They need Xvfb, openbox, xdotool, ImageMagick's ``import``, dbus, at-spi2-core and
python3-pyatspi (``packaging/dev.py test`` installs them on Debian); without them they
are skipped, saying what is missing. Screenshots and the app's logs of each journey go to
``build/journeys/<test>/`` (``ASSISTA_JOURNEY_ARTIFACTS`` overrides), kept by CI.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.journeys.desktop import CpuHog, Desktop, Screen, missing_tools
from tests.journeys.model_server import JourneyModel

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("ASSISTA_JOURNEY_ARTIFACTS", ROOT / "build" / "journeys"))
SIZES = {"1400x900": (1400, 900), "800x600": (800, 600)}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    missing = missing_tools()
    if missing is None:
        return
    skip = pytest.mark.skip(reason=f"journeys need {missing} (packaging/dev.py installs it)")
    for item in items:
        if "journeys" in str(item.fspath):
            item.add_marker(skip)


@pytest.fixture
def model() -> Iterator[JourneyModel]:
    with JourneyModel() as server:
        yield server


@pytest.fixture(params=list(SIZES), ids=list(SIZES))
def size(request: pytest.FixtureRequest) -> tuple[int, int]:
    return SIZES[request.param]


@pytest.fixture
def artifacts(request: pytest.FixtureRequest) -> Path:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    folder = ARTIFACTS / name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    return folder


@pytest.fixture
def screen(size: tuple[int, int], tmp_path: Path) -> Iterator[Screen]:
    shown = Screen(size, tmp_path)
    try:
        yield shown
    finally:
        shown.stop()


@pytest.fixture
def desktop(screen: Screen, model: JourneyModel, tmp_path: Path,
            artifacts: Path) -> Iterator[Desktop]:
    """The app's world with a provider from the environment (an OpenAI-compatible
    server on loopback), as a user who exported OPENAI_API_KEY/OPENAI_BASE_URL has."""
    person = Desktop(screen, tmp_path / "home", artifacts,
                     env={"OPENAI_API_KEY": "sk-journey", "OPENAI_BASE_URL": model.base_url})
    try:
        yield person
    finally:
        person.stop()


@pytest.fixture
def bare_desktop(screen: Screen, tmp_path: Path, artifacts: Path) -> Iterator[Desktop]:
    """A first start: no provider anywhere."""
    person = Desktop(screen, tmp_path / "home", artifacts)
    try:
        yield person
    finally:
        person.stop()


@pytest.fixture
def hog() -> Iterator[CpuHog]:
    """A slow machine: every core busy beside the app."""
    busy = CpuHog()
    try:
        yield busy
    finally:
        busy.stop()
