#!/usr/bin/env python3
"""One-command setup for a fresh machine: ``python3 packaging/dev.py run`` / ``test``.

* ``run``  — create ``.venv``, install the app, compile the interface translations
  (``translations``), start it (extra args go to ``assista``).
* ``test`` — the same, plus test tools; then ruff, mypy and pytest (the CI command).
* ``translations`` — compile ``resources/i18n/*.ts`` to ``.qm`` with PySide6's
  ``lrelease`` (``packaging/translations.py update`` brings new texts into the .ts).

On Debian/Ubuntu it installs, when missing and when it may (root, or sudo without a
password), the system packages Qt needs to open a window and ``python3-venv``.
Only the standard library is used here, so this works before anything is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
# Libraries the Qt xcb platform plugin and QtGui load at run time (Debian names).
QT_SYSTEM_PACKAGES = [
    "libegl1", "libgl1", "libfontconfig1", "libglib2.0-0", "libdbus-1-3",
    "libxkbcommon0", "libxkbcommon-x11-0", "libxcb-cursor0", "libxcb-icccm4",
    "libxcb-keysyms1", "libxcb-image0", "libxcb-render-util0", "libxcb-shape0",
    "libxcb-randr0", "libxcb-xfixes0", "libxcb-xkb1", "libxcb-sync1", "libxcb-xinerama0",
    "libx11-xcb1",
    # Chinese and Japanese glyphs for the zh_CN/ja translations (small; noto-cjk is 50 MB)
    "fonts-droid-fallback",
]
# For the tests only: a screen reader's view of the app (an X server, the AT-SPI bus and
# pyatspi, the library Orca uses; tests/ui/markdown/test_atspi.py skips without them);
# xdotool presses the quick-ask global shortcut on Xvfb and dbus-daemon runs a private
# bus with a fake desktop portal (tests/ui/quick/test_global_shortcut_*.py).
# The journeys (tests/journeys) add a window manager and ImageMagick's ``import`` for
# their screenshots: the shipped app driven on Xvfb as a person would. rclone and nginx
# (with its WebDAV PROPFIND module, and nginx's 1 MB upload limit) serve WebDAV for the
# sync tests, besides wsgidav.
TEST_SYSTEM_PACKAGES = ["xvfb", "xdotool", "dbus", "at-spi2-core", "python3-pyatspi",
                        "openbox", "imagemagick", "rclone", "nginx",
                        "libnginx-mod-http-dav-ext",
                        # The previews' safety test (tests/core/test_page_preview.py):
                        # the generated page in a real browser, headless; espeak-ng:
                        # the system speech of read-aloud on Linux.
                        "chromium", "espeak-ng"]
#: What the app uses when present (run_command's sandbox); the .deb recommends it.
APP_SYSTEM_PACKAGES = ["bubblewrap"]


def say(text: str) -> None:
    print(f"[assista setup] {text}", flush=True)


def run(cmd: list[str], **kwargs: object) -> None:
    say(" ".join(cmd))
    subprocess.run(cmd, check=True, **kwargs)  # type: ignore[call-overload]


def _apt_prefix() -> list[str] | None:
    if shutil.which("apt-get") is None or shutil.which("dpkg-query") is None:
        return None
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"],
                                               capture_output=True, check=False).returncode == 0:
        return ["sudo", "-n"]
    return None


def _missing_debs(names: list[str]) -> list[str]:
    missing = []
    for name in names:
        probe = subprocess.run(["dpkg-query", "-W", "-f=${Status}", name],
                               capture_output=True, text=True, check=False)
        if "install ok installed" not in probe.stdout:
            missing.append(name)
    return missing


def ensure_system_packages(names: list[str]) -> None:
    prefix = _apt_prefix()
    if prefix is None:
        return
    missing = _missing_debs(names)
    if not missing:
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        run([*prefix, "apt-get", "update", "-q"], env=env, stdout=subprocess.DEVNULL)
        run([*prefix, "apt-get", "install", "-y", "-q", "--no-install-recommends", *missing],
            env=env, stdout=subprocess.DEVNULL)
    except subprocess.CalledProcessError:
        say("could not install " + " ".join(missing) + "; continuing (the app may not start)")


#: Servers nobody here wrote that the tests talk to, from the npm registry (skipped where
#: Node.js is missing): the MCP reference server, over stdio, Streamable HTTP and SSE,
#: two S3 servers for sync (s3rver and a fork of it) and two OAuth authorization servers.
NPM_TEST_SERVERS = [
    "@modelcontextprotocol/server-everything@2026.8.31",
    # S3 servers for the sync tests (tests/sync/test_s3rver.py): s3rver, and its fork that
    # checks SigV4 signatures (it asks for Node 24 but runs on 20: an install warning only)
    "s3rver@3.7.1",
    "@20minutes/s3rver@5.0.0",
    # OAuth authorization servers for the MCP sign-in tests (tests/tools/oauth_servers.py):
    # panva's certified OpenID Provider (discovery, dynamic registration, PKCE, refresh
    # tokens, JWT access tokens for a resource indicator) and oauth2-mock-server
    "oidc-provider@9.13.3",
    "oauth2-mock-server@8.2.3",
]
NPM_PREFIX = ROOT / "build" / "test-servers"


def install_npm_test_servers() -> None:
    npm = shutil.which("npm")
    if npm is None:
        say("npm not found: the tests against the MCP reference server will be skipped")
        return
    wanted = NPM_PREFIX / "wanted.txt"
    if wanted.exists() and wanted.read_text() == "\n".join(NPM_TEST_SERVERS):
        return
    try:
        run([npm, "install", "--prefix", str(NPM_PREFIX), "--no-audit", "--no-fund",
             "--loglevel=error", *NPM_TEST_SERVERS], stdout=subprocess.DEVNULL)
    except subprocess.CalledProcessError:
        say("could not install the npm test servers; their tests will be skipped")
        return
    wanted.write_text("\n".join(NPM_TEST_SERVERS))


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv() -> Path:
    python = venv_python()
    if python.exists():
        return python
    try:
        run([sys.executable, "-m", "venv", str(VENV)])
    except subprocess.CalledProcessError:
        shutil.rmtree(VENV, ignore_errors=True)
        version = f"python3.{sys.version_info.minor}-venv"
        ensure_system_packages(["python3-venv", version])
        run([sys.executable, "-m", "venv", str(VENV)])
    run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"])
    return python


def install(python: Path, extras: str) -> None:
    target = f".{extras}" if extras else "."
    run([str(python), "-m", "pip", "install", "-q", "-e", target], cwd=ROOT)


def build_translations(python: Path) -> None:
    """The .qm files the app loads (built from the .ts sources, not committed)."""
    run([str(python), str(ROOT / "packaging" / "translations.py"), "build"], cwd=ROOT)


def fetch_web_assets() -> None:
    """mermaid.js for the diagram previews (from npm, not committed)."""
    sys.path.insert(0, str(ROOT / "packaging"))
    import web_assets

    try:
        web_assets.fetch_mermaid()
    except (OSError, subprocess.CalledProcessError) as exc:
        say(f"could not fetch mermaid ({exc}); its previews will say it is missing")


def cmd_translations(_args: list[str]) -> int:
    build_translations(ensure_venv())
    return 0


def cmd_run(args: list[str]) -> int:
    if sys.platform.startswith("linux"):
        ensure_system_packages(QT_SYSTEM_PACKAGES + APP_SYSTEM_PACKAGES)
    python = ensure_venv()
    install(python, "")
    build_translations(python)
    fetch_web_assets()
    return subprocess.call([str(python), "-m", "desktop", *args], cwd=ROOT)


def test_workers() -> int:
    """pytest-xdist workers for the unit suite: one per core this process may use.

    A third worker on two cores ran the suite ~1 minute faster (a third of its time waits
    on the processes and servers it starts), but it starved the window tests' timing: in
    two fresh-clone runs it exposed two races (each fixed); the run must be dependable
    first."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else (os.cpu_count() or 1)


def cmd_test(args: list[str]) -> int:
    if sys.platform.startswith("linux"):
        ensure_system_packages(QT_SYSTEM_PACKAGES + APP_SYSTEM_PACKAGES + TEST_SYSTEM_PACKAGES)
    python = ensure_venv()
    install(python, "[test]")
    build_translations(python)
    fetch_web_assets()
    install_npm_test_servers()
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    # Bytecode is written (to __pycache__, ignored by git): each pytest worker would
    # otherwise rewrite every test module's asserts and compile it from source (about
    # 6 CPU-seconds a worker), and each of the few hundred app processes the tests start
    # would compile the app's modules again.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    pytest = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    steps = [
        [str(python), "-m", "ruff", "check", "desktop", "tests", "packaging"],
        [str(python), "-m", "mypy"],
        # The unit suite, offscreen; then the journeys: the installed ``assista`` on
        # Xvfb with a window manager (their screenshots go to build/journeys/).
        # One worker per core, each test file whole on one (its fixtures and order as
        # written). With arguments (a file, -k ...) one process, as given.
        [*pytest, "--ignore=tests/journeys",
         *(args or ["-n", str(test_workers()), "--dist", "loadfile"])],
    ]
    if not args:
        steps.append([*pytest, "tests/journeys"])
    trail = ROOT / "build" / "test-trail"
    trail.mkdir(parents=True, exist_ok=True)
    env["ASSISTA_TEST_TRAIL"] = str(trail / "under-way")
    for step in steps:
        say(" ".join(step[2:]))
        for old in trail.iterdir():
            old.unlink()
        code = subprocess.call(step, cwd=ROOT, env=env)
        if code != 0:
            say(f"FAILED: {' '.join(step[2:])} (exit {code})")
            if code < 0:  # killed by a signal: say in which test(s)
                for left in sorted(trail.iterdir()):
                    say(f"  the test under way ({left.name}): "
                        f"{left.read_text(encoding='utf-8').strip()}")
            return code
    say("all checks passed")
    return 0


def main() -> int:
    commands = {"run": cmd_run, "test": cmd_test, "translations": cmd_translations}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(__doc__)
        return 2
    return commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
