"""A private X server for tests that need a real one (key grabs): wire it up with::

    from tests.support.xvfb import xserver, xvfb  # noqa: F401

``xvfb`` is the display name (":N"), ``xserver`` the server itself; the test is
skipped, saying why, when Xvfb or xdotool (which the tests press keys with) is not
installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest


class XServer:
    """A private X server on a display number it picks itself (-displayfd)."""

    def __init__(self) -> None:
        read_end, write_end = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_end), "-nolisten", "tcp", "-screen", "0",
             "640x480x24"], pass_fds=(write_end,), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(write_end)
        with os.fdopen(read_end) as pipe:
            number = pipe.readline().strip()  # written once the server accepts clients
        self.display = f":{number}" if number else ""

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture
def xserver() -> Iterator[XServer]:
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (Debian package xvfb; packaging/dev.py installs it)")
    if shutil.which("xdotool") is None:
        pytest.skip("xdotool is not installed (Debian package xdotool; packaging/dev.py)")
    server = XServer()
    try:
        if not server.display:
            pytest.skip("Xvfb did not start")
        yield server
    finally:
        server.stop()


@pytest.fixture
def xvfb(xserver: XServer) -> str:
    """The display name (":N") of a private X server."""
    return xserver.display
