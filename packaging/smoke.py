"""Start a built bundle and check it: ``--version`` and a ``--smoke`` start-and-quit.

``--smoke`` opens the main window, loads settings and the database from a temporary
``--data-dir``, prints ``smoke ok: ...`` and exits 0. Here it runs offscreen
(``QT_QPA_PLATFORM=offscreen``), from the bundle folder and from a .deb unpacked into
a scratch root with ``dpkg -x`` (the way it lands under ``/opt``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import app_identity

TIMEOUT_S = 120


class SmokeError(RuntimeError):
    """A one-line reason a smoke check failed."""


@dataclass
class SmokeRun:
    command: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def smoke_env(platform_plugin: str = "offscreen") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "QT_"))}
    env["QT_QPA_PLATFORM"] = platform_plugin
    return env


def run(command: list[str], env: dict[str, str] | None = None) -> SmokeRun:
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S,
                              env=env or smoke_env(), check=False)
    except subprocess.TimeoutExpired as exc:
        raise SmokeError(f"{command[0]} did not finish in {TIMEOUT_S} s") from exc
    return SmokeRun(command, done.returncode, done.stdout, done.stderr,
                    time.perf_counter() - start)


def check_version(executable: Path) -> SmokeRun:
    result = run([str(executable), "--version"])
    expected = f"{app_identity.EXECUTABLE} {app_identity.identity().version}"
    if result.returncode != 0 or result.stdout.strip() != expected:
        raise SmokeError(f"{executable} --version: exit {result.returncode}, printed "
                         f"{result.stdout.strip()!r} (expected {expected!r}) {_tail(result)}")
    return result


def check_smoke(executable: Path, data_dir: Path, env: dict[str, str] | None = None) -> SmokeRun:
    result = run([str(executable), "--smoke", "--data-dir", str(data_dir)], env)
    if result.returncode != 0 or "smoke ok:" not in result.stdout:
        raise SmokeError(f"{executable} --smoke: exit {result.returncode} {_tail(result)}")
    if not any(data_dir.iterdir()):
        raise SmokeError(f"{executable} --smoke left {data_dir} empty (no database written)")
    return result


def _tail(result: SmokeRun) -> str:
    lines = (result.stderr or result.stdout).strip().splitlines()
    return f"({lines[-1]})" if lines else ""


def smoke_executable(executable: Path) -> list[SmokeRun]:
    """``--version`` then ``--smoke`` with a fresh temporary data folder."""
    with tempfile.TemporaryDirectory(prefix="assista-smoke-") as tmp:
        return [check_version(executable), check_smoke(executable, Path(tmp) / "data")]


def smoke_deb(deb: Path, scratch: Path) -> list[SmokeRun]:
    """Unpack ``deb`` into ``scratch`` with ``dpkg -x`` and start it from there."""
    if shutil.which("dpkg") is None:
        raise SmokeError("dpkg not found")
    if scratch.exists():
        shutil.rmtree(scratch)
    subprocess.run(["dpkg", "-x", str(deb), str(scratch)], check=True)
    link = scratch / "usr" / "bin" / app_identity.EXECUTABLE
    expected = f"/opt/{app_identity.DEB_PACKAGE}/{app_identity.EXECUTABLE}"
    if not link.is_symlink() or os.readlink(link) != expected:
        raise SmokeError(f"{link} should be a symlink to {expected}")
    desktop = scratch / "usr/share/applications" / f"{app_identity.APP_ID}.desktop"
    if shutil.which("desktop-file-validate"):
        checked = subprocess.run(["desktop-file-validate", str(desktop)], capture_output=True,
                                 text=True, check=False)
        if checked.returncode != 0 or checked.stdout.strip():
            raise SmokeError(f"desktop-file-validate: {checked.stdout.strip()}")
    icon = scratch / "usr/share/icons/hicolor/256x256/apps" / f"{app_identity.APP_ID}.png"
    if not icon.is_file():
        raise SmokeError(f"icon missing from the .deb: {icon.relative_to(scratch)}")
    return smoke_executable(scratch / expected.lstrip("/"))
