"""The real thing: build the Linux bundle and installers, start them (opt in, minutes).

    ASSISTA_BUILD_TESTS=1 .venv/bin/pytest tests/packaging/test_build_bundle.py -v
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "dist" / "assista" / "assista"

pytestmark = [
    pytest.mark.build,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux bundle"),
]


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, check=False)


@pytest.fixture(scope="module")
def built() -> str:
    """``build.py --smoke``: bundle, checks, tarball, .deb, AppDir, then --version and
    --smoke offscreen from the bundle, the AppDir and the .deb unpacked with dpkg -x."""
    done = _run(["packaging/build.py", "--smoke", "--appimage", "--deb-compression", "zstd"],
                timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_bundle_and_deb_start_offscreen(built: str) -> None:
    assert "smoke (bundle): --version ok" in built
    assert "smoke (bundle): --smoke ok" in built
    assert "smoke (.deb via dpkg -x): --smoke ok" in built
    assert "smoke (AppDir/AppRun): --smoke ok" in built
    assert list((ROOT / "dist").glob("assista-*-linux-*.tar.gz"))
    assert list((ROOT / "dist").glob("assista_*.deb"))


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs xvfb-run")
def test_bundle_starts_on_x11(built: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QT_")}
    env["QT_QPA_PLATFORM"] = "xcb"
    with tempfile.TemporaryDirectory() as data:
        done = subprocess.run(["xvfb-run", "-a", str(BUNDLE), "--smoke", "--data-dir", data],
                              capture_output=True, text=True, env=env, timeout=120,
                              check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "smoke ok:" in done.stdout


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mmdebstrap") is None,
                    reason="needs root and mmdebstrap")
def test_deb_in_clean_debian_roots(built: str) -> None:
    done = _run(["packaging/deb_probe.py", "--xcb"], timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "Depends verified: exactly what the bundle needs" in done.stdout
