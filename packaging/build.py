#!/usr/bin/env python3
"""Build Assista's bundle and this OS's installers: ``python packaging/build.py``.

1. ``translations.py build`` compiles resources/i18n/*.ts to .qm; PyInstaller runs
   ``packaging/assista.spec`` -> ``dist/assista/`` (``dist/Assista.app``
   on macOS); build time, size and the ten largest items are printed.
2. ``bundle_check`` verifies the bundle (Qt plugins, certificates, keyring backends,
   every app module, nothing excluded by policy).
3. Installers: Linux ``dist/assista-<v>-linux-<arch>.tar.gz`` and
   ``dist/assista_<v>_<arch>.deb``; Windows ``dist/Assista-<v>-windows-x64-setup.exe``
   (needs makensis); macOS ``dist/Assista-<v>-macos-<arch>.dmg`` (hdiutil).
4. ``--smoke``: ``assista --version`` and ``assista --smoke`` (offscreen, temporary data
   folder) from the bundle and, on Linux, from the .deb unpacked into a scratch root.

Options: ``--skip-bundle`` reuses dist/, ``--no-installers``, ``--appimage`` (Linux,
needs appimagetool; otherwise only the AppDir is staged), ``--smoke``, ``--bench``
(start-to-window time, bundle vs venv), ``--probe`` (the .deb in clean Debian roots;
root only). Writes the report to ``dist/build-report.txt`` as well.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import app_identity
import bundle_check
import bundle_report
import runtime_deps
import translations

PACKAGING = Path(__file__).resolve().parent
ROOT = PACKAGING.parent
DIST = ROOT / "dist"
WORK = ROOT / "build"
VENV_PYTHON = ROOT / ".venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _reexec_in_venv() -> None:
    """Run under the project's venv (it has the app and PyInstaller), like dev.py does."""
    try:
        import PyInstaller  # noqa: F401

        import desktop  # noqa: F401
    except ImportError:
        in_venv = Path(sys.prefix).resolve() == (ROOT / ".venv").resolve()
        if VENV_PYTHON.exists() and not in_venv:
            os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), *sys.argv])
        print("build: PyInstaller is not installed; run:\n"
              "  .venv/bin/pip install -e '.[packaging]'   (or: pip install pyinstaller)")
        sys.exit(2)

LINES: list[str] = []


def say(text: str = "") -> None:
    print(text, flush=True)
    LINES.append(text)


def timed(label: str, action: Callable[[], Path]) -> Path:
    start = time.perf_counter()
    result = action()
    size = bundle_report.mib(result.stat().st_size) if result.is_file() else ""
    say(f"{label}: {result.relative_to(ROOT) if result.is_relative_to(ROOT) else result} "
        f"{size} in {time.perf_counter() - start:.1f} s")
    return result


def require_current_metadata(name: str) -> None:
    """Stop, saying what to run, when the installed metadata predates a dependency
    ``pyproject.toml`` declares: the bundle takes its dependencies from that metadata
    (see the spec) and would leave the new one out."""
    stale = runtime_deps.not_installed_as_declared(name, app_identity.dependencies())
    if stale:
        raise SystemExit(f"build: pyproject.toml declares {', '.join(stale)}, which the "
                         f"installed {name} does not require yet: run python3 "
                         "packaging/dev.py (it installs the app again), then build")


#: zlib's level for the modules in PyInstaller's archive (its default is 6). Stored,
#: not deflated: each module imported at start-up was inflated first (~4.5% of the main
#: thread's samples, py-spy); measured with ``assista --smoke`` and 1,000 chats, 10 runs
#: each, ~30-45 ms less CPU (886 -> 841 ms; the venv's 844). The installers compress it
#: better than zlib did (.deb 58.2 -> 52.8 MiB, tar.gz 77.9 -> 76.7 MiB); the installed
#: bundle is 20.5 MiB bigger (189.1 -> 209.6 MiB).
PYZ_COMPRESSION_LEVEL = 0


def run_pyinstaller() -> float:
    log = WORK / "pyinstaller.log"
    WORK.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean",
           "--distpath", str(DIST), "--workpath", str(WORK / "pyinstaller"),
           str(PACKAGING / "assista.spec")]
    start = time.perf_counter()
    with log.open("w", encoding="utf-8") as handle:
        # Not from ROOT: there `import packaging` could find this folder.
        code = subprocess.call(cmd, cwd=WORK, stdout=handle, stderr=subprocess.STDOUT,
                               env=dict(os.environ, PYINSTALLER_ZLIB_COMPRESSION_LEVEL=str(
                                   PYZ_COMPRESSION_LEVEL)))
    seconds = time.perf_counter() - start
    if code != 0:
        tail = log.read_text(encoding="utf-8").strip().splitlines()[-15:]
        print("\n".join(tail), file=sys.stderr)
        raise SystemExit(f"build: PyInstaller failed (exit {code}); full log: {log}")
    return seconds


def machine() -> str:
    return {"AMD64": "x86_64", "x86_64": "x86_64", "arm64": "arm64",
            "aarch64": "aarch64"}.get(platform.machine(), platform.machine().lower())


def linux_installers(compression: str, appimage: bool) -> list[Path]:
    import linux_packages

    where = bundle_check.layout(DIST)
    made: list[Path] = []
    if appimage:
        try:
            made.append(timed("AppImage", lambda: linux_packages.build_appimage(
                where.root, DIST, WORK, machine())))
        except linux_packages.PackagingError as exc:
            say(f"AppImage not built: {exc}")
    try:
        tarball = timed("tarball", lambda: linux_packages.build_tarball(where.root, DIST,
                                                                        machine()))
        deb = timed("deb", lambda: linux_packages.build_deb(where.root, DIST, WORK,
                                                                compression=compression))
    except linux_packages.PackagingError as exc:
        raise SystemExit(f"build: {exc}") from exc
    fields = subprocess.run(["dpkg-deb", "-f", str(deb), "Depends"], capture_output=True,
                            text=True, check=False).stdout.strip()
    say(f"deb Depends: {fields}")
    return [tarball, deb, *made]


def windows_installers() -> list[Path]:
    import nsis

    where = bundle_check.layout(DIST)
    try:
        return [timed("installer", lambda: nsis.compile_installer(
            where.root, DIST / nsis.installer_name("arm64" if machine() == "arm64" else "x64")))]
    except nsis.NsisError as exc:
        raise SystemExit(f"build: {exc}") from exc


def macos_installers() -> list[Path]:
    script = PACKAGING / "macos" / "make_dmg.sh"

    def make() -> Path:
        out = subprocess.run(["bash", str(script), str(DIST)], capture_output=True, text=True,
                             check=False)
        if out.returncode != 0:
            raise SystemExit(f"build: make_dmg.sh failed: {out.stderr.strip()[-300:]}")
        return Path(out.stdout.strip().splitlines()[-1])

    return [timed("dmg", make)]


def smoke(installers: list[Path]) -> None:
    import smoke as smoke_mod

    where = bundle_check.layout(DIST)
    try:
        for run in smoke_mod.smoke_executable(where.executable):
            say(f"smoke (bundle): {' '.join(run.command[1:2])} ok in {run.seconds:.2f} s"
                f" -> {run.stdout.strip().splitlines()[-1]}")
        appdir = WORK / "AppDir" / "AppRun"
        if appdir.is_file():
            for run in smoke_mod.smoke_executable(appdir):
                say(f"smoke (AppDir/AppRun): {' '.join(run.command[1:2])} ok in "
                    f"{run.seconds:.2f} s")
        for deb in (p for p in installers if p.suffix == ".deb"):
            for run in smoke_mod.smoke_deb(deb, WORK / "deb-scratch"):
                say(f"smoke (.deb via dpkg -x): {' '.join(run.command[1:2])} ok in "
                    f"{run.seconds:.2f} s -> {run.stdout.strip().splitlines()[-1]}")
    except smoke_mod.SmokeError as exc:
        raise SystemExit(f"build: smoke test failed: {exc}") from exc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-bundle", action="store_true", help="reuse the bundle in dist/")
    parser.add_argument("--no-installers", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="start the bundle and the .deb")
    parser.add_argument("--bench", action="store_true", help="start-to-window, bundle vs venv")
    parser.add_argument("--probe", action="store_true", help="the .deb in clean Debian roots")
    parser.add_argument("--appimage", action="store_true",
                        help="also an AppImage (Linux; needs appimagetool on PATH)")
    parser.add_argument("--deb-compression", choices=["xz", "zstd", "gzip"], default="xz",
                        help="xz: smallest, slowest (default); zstd: 40x faster, ~30%% larger")
    args = parser.parse_args(argv)
    _reexec_in_venv()
    ident = app_identity.identity()
    say(f"{app_identity.DISPLAY_NAME} {ident.version} on {sys.platform}/{machine()}, "
        f"Python {platform.python_version()}")
    if not args.skip_bundle:
        require_current_metadata(ident.name)
        # The interface translations (.qm, not committed) go into resources/ first.
        say(f"translations: {len(translations.build())} .qm files")
        # mermaid.js for the diagram previews, from npm with its licence (not committed).
        import web_assets

        say(f"web assets: {web_assets.fetch_mermaid() or 'mermaid not fetched (no npm)'}")
        say(f"pyinstaller: {run_pyinstaller():.1f} s")
    where = bundle_check.layout(DIST)
    checked = bundle_check.check_bundle(DIST)
    if checked.problems:
        for problem in checked.problems:
            print(f"build: {problem}", file=sys.stderr)
        raise SystemExit(f"build: the bundle in {where.root} failed {len(checked.problems)} "
                         "check(s)")
    say(f"bundle checks: {checked.checked} passed")
    undeclared = bundle_check.undeclared_dependencies(DIST)
    if undeclared:
        say("WARNING: bundled but not declared in pyproject.toml dependencies: "
            + ", ".join(undeclared))
    say(bundle_report.format_figures(bundle_report.measure(where.root)))
    installers: list[Path] = []
    if not args.no_installers:
        if sys.platform.startswith("linux"):
            installers = linux_installers(args.deb_compression, args.appimage)
        elif sys.platform == "win32":
            installers = windows_installers()
        elif sys.platform == "darwin":
            installers = macos_installers()
    if args.smoke:
        smoke(installers)
    DIST.mkdir(exist_ok=True)
    (DIST / "build-report.txt").write_text("\n".join(LINES) + "\n", encoding="utf-8")
    code = 0
    if args.probe:
        import deb_probe

        code = deb_probe.main([])
    if args.bench and code == 0:
        import startup_bench

        code = startup_bench.main(["--bundle", str(where.executable)])
    return code


if __name__ == "__main__":
    sys.exit(main())
