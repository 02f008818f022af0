#!/usr/bin/env python3
"""Compile the Windows installer (``windows/assista.nsi``) with ``makensis``.

On Windows, ``build.py`` calls :func:`compile_installer` on the real bundle. Anywhere
``makensis`` exists (Debian: ``apt-get install nsis``), ``python packaging/nsis.py
--check`` compiles the script around a placeholder payload: the script, its defines,
the icon and the version resource are then known to be valid before a Windows runner
ever sees them.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import app_identity

PACKAGING = Path(__file__).resolve().parent
SCRIPT = PACKAGING / "windows" / "assista.nsi"
ICON = app_identity.ROOT / "resources" / "icons" / "assista.ico"


class NsisError(RuntimeError):
    """A one-line reason the installer could not be compiled."""


def installer_name(machine: str = "x64") -> str:
    version = app_identity.identity().version
    return f"{app_identity.APP_NAME}-{version}-windows-{machine}-setup.exe"


def _native(path: Path) -> str:
    """Paths as makensis on this OS wants them (it accepts / on Linux, \\ on Windows)."""
    return str(path)


def compile_installer(bundle: Path, out_file: Path, makensis: str | None = None) -> Path:
    tool = makensis or shutil.which("makensis")
    if tool is None:
        raise NsisError("makensis not found (Windows: choco install nsis; Debian: apt-get "
                        "install nsis)")
    ident = app_identity.identity()
    out_file.parent.mkdir(parents=True, exist_ok=True)
    defines = {
        "APP_VERSION": ident.version,
        "APP_NUMERIC_VERSION": ident.dotted_numeric,
        "BUNDLE_DIR": _native(bundle.resolve()),
        "OUT_FILE": _native(out_file.resolve()),
        "ICON": _native(ICON),
    }
    # makensis takes options with "-" on every OS ("/" too on Windows only).
    cmd = [tool, "-V2", "-WX", *(f"-D{k}={v}" for k, v in defines.items()), str(SCRIPT)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not out_file.is_file():
        lines = (done.stdout + done.stderr).strip().splitlines()
        raise NsisError(f"makensis failed (exit {done.returncode}): {' | '.join(lines[-3:])}")
    return out_file


def placeholder_bundle(folder: Path) -> Path:
    """A stand-in for dist/assista with the files the script names."""
    bundle = folder / app_identity.EXECUTABLE
    (bundle / "_internal").mkdir(parents=True)
    for exe in ("assista.exe", "assista-gui.exe"):
        (bundle / exe).write_bytes(b"MZ placeholder\n")
    (bundle / "_internal" / "placeholder.txt").write_text("payload\n", encoding="utf-8")
    return bundle


def check(out_dir: Path | None = None) -> Path:
    """Compile around a placeholder payload; returns the installer written."""
    with tempfile.TemporaryDirectory(prefix="assista-nsis-") as tmp:
        bundle = placeholder_bundle(Path(tmp))
        target = (out_dir or Path(tmp)) / installer_name()
        compile_installer(bundle, target)
        if out_dir is None:
            return Path(shutil.copy2(target, Path(tempfile.gettempdir()) / target.name))
        return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compile a placeholder payload")
    parser.add_argument("--bundle", type=Path, help="the PyInstaller bundle (dist/assista)")
    parser.add_argument("--out", type=Path, default=app_identity.ROOT / "dist")
    args = parser.parse_args(argv)
    try:
        if args.check or args.bundle is None:
            target = check(args.out)
        else:
            target = compile_installer(args.bundle, args.out / installer_name())
    except NsisError as exc:
        print(f"nsis: {exc}", file=sys.stderr)
        return 1
    print(f"installer: {target} ({target.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
