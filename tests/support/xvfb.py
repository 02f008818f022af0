"""A private X server for tests that need a real one (key grabs): wire it up with::

    from tests.support.xvfb import xvfb  # noqa: F401

``xvfb`` is the display name (":N"); the test is skipped, saying why, when Xvfb or
xdotool (which the tests press keys with) is not installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest


@pytest.fixture
def xvfb() -> Iterator[str]:
    """A private X server on a display number it picks itself (-displayfd)."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (Debian package xvfb; packaging/dev.py installs it)")
    if shutil.which("xdotool") is None:
        pytest.skip("xdotool is not installed (Debian package xdotool; packaging/dev.py)")
    read_end, write_end = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-nolisten", "tcp",
                               "-screen", "0", "640x480x24"], pass_fds=(write_end,),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_end)
    try:
        with os.fdopen(read_end) as pipe:
            number = pipe.readline().strip()  # written once the server accepts clients
        if not number:
            pytest.skip("Xvfb did not start")
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)
