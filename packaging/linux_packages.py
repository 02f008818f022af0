"""The Linux installers made from the bundle: a .tar.gz and a .deb (``dpkg-deb``).

.deb layout: the bundle in ``/opt/assista``, ``/usr/bin/assista`` -> ``/opt/assista/assista``,
``/usr/share/applications/assista-desktop.desktop``, hicolor icons named
``assista-desktop`` (the app's desktop-file id, so Wayland compositors match the window
to its entry) and ``/usr/share/doc/assista/copyright``. No maintainer scripts: Debian's
icon-cache and desktop-database triggers run on their own.
``Depends:`` comes from ``linux/depends.txt`` with libc6/libstdc++6 floors measured here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

import app_identity
import linux_libs
from elf import version_key

PACKAGING = Path(__file__).resolve().parent
LINUX = PACKAGING / "linux"
DEPENDS_FILE = LINUX / "depends.txt"
DESKTOP_FILE = LINUX / "assista-desktop.desktop"
METAINFO_FILE = LINUX / "assista-desktop.metainfo.xml"
APPRUN = LINUX / "appimage" / "AppRun"
ICONS = app_identity.ROOT / "resources" / "icons"
INSTALL_DIR = f"opt/{app_identity.DEB_PACKAGE}"
#: GLIBCXX_3.4.N -> first GCC major shipping it (libstdc++6 package version).
_GLIBCXX_GCC = {25: 8, 26: 9, 27: 9, 28: 10, 29: 11, 30: 12, 31: 13, 32: 13, 33: 14, 34: 15}


class PackagingError(RuntimeError):
    """A one-line reason an installer could not be made."""


@dataclass(frozen=True)
class DependsEntry:
    package: str  #: with an optional version constraint, e.g. ``libxcb1 (>= 1.8)``
    sonames: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.package.split(" ", 1)[0]


def read_depends(path: Path = DEPENDS_FILE) -> list[DependsEntry]:
    entries = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.match(r"^(\S+(?:\s+\([^)]*\))?)\s*(.*)$", line)
        if match is None:
            raise PackagingError(f"{path.name}: cannot read line {raw!r}")
        entries.append(DependsEntry(match.group(1), tuple(match.group(2).split())))
    return entries


def deb_architecture() -> str:
    try:
        out = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True,
                             check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise PackagingError(f"dpkg --print-architecture failed: {exc}") from exc
    return out.stdout.strip()


def depends_field(bundle: Path, entries: list[DependsEntry] | None = None) -> str:
    """The ``Depends:`` value for this bundle; raises when it needs an unlisted soname."""
    entries = read_depends() if entries is None else entries
    infos = linux_libs.scan_bundle(bundle)
    needs = linux_libs.system_needs(bundle, infos)
    listed = {soname for entry in entries for soname in entry.sonames}
    unlisted = sorted(set(needs) - listed)
    if unlisted:
        raise PackagingError(
            "the bundle needs system libraries missing from linux/depends.txt: "
            + ", ".join(unlisted) + " (add their packages; check with packaging/deb_probe.py)"
        )
    found = linux_libs.floors(infos)
    parts = []
    for entry in entries:
        if not set(entry.sonames) & set(needs):
            continue  # listed, but this bundle does not need it (e.g. other architecture)
        package = entry.package
        if entry.name == "libc6" and found["GLIBC"]:
            package = "libc6 (>= {})".format(".".join(map(str, version_key(found["GLIBC"]))))
        elif entry.name == "libstdc++6" and found["GLIBCXX"]:
            gcc = _GLIBCXX_GCC.get(version_key(found["GLIBCXX"])[-1])
            package = f"libstdc++6 (>= {gcc})" if gcc else "libstdc++6"
        parts.append(package)
    return ", ".join(parts)


def _copy_bundle(bundle: Path, target: Path) -> None:
    shutil.copytree(bundle, target, symlinks=True)


def _install_icons(root: Path) -> None:
    hicolor = root / "usr/share/icons/hicolor"
    for png in sorted((ICONS / "png").glob("assista-*.png")):
        size = png.stem.rsplit("-", 1)[1]
        dest = hicolor / f"{size}x{size}" / "apps" / f"{app_identity.APP_ID}.png"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(png, dest)
    scalable = hicolor / "scalable" / "apps" / f"{app_identity.APP_ID}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ICONS / "assista.svg", scalable)


def _copyright(version: str) -> str:
    ident = app_identity.identity()
    return (
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
        f"Upstream-Name: {app_identity.DISPLAY_NAME}\n"
        f"Source: {app_identity.HOMEPAGE}\n\n"
        f"Files: *\nCopyright: {app_identity.PUBLISHER}\nLicense: {ident.license}\n\n"
        f"Files: /{INSTALL_DIR}/_internal/*\n"
        "Copyright: the authors of each bundled component\n"
        "License: various\n"
        f" {app_identity.DISPLAY_NAME} {version} bundles Python, Qt (PySide6, LGPL-3.0) and\n"
        " Python packages. Each component's licence is in its *.dist-info folder under\n"
        f" /{INSTALL_DIR}/_internal/ and is listed in Help > About.\n"
    )


def _control(bundle: Path, root: Path, arch: str) -> str:
    ident = app_identity.identity()
    size_kib = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()
                   and not p.is_symlink()) // 1024
    summary, _, _ = ident.description.partition(":")
    return (
        f"Package: {app_identity.DEB_PACKAGE}\n"
        f"Version: {ident.deb_version}\n"
        f"Architecture: {arch}\n"
        f"Maintainer: {app_identity.MAINTAINER}\n"
        f"Installed-Size: {size_kib}\n"
        f"Depends: {depends_field(bundle)}\n"
        "Recommends: bubblewrap\n"  # run_command's sandbox (desktop.tools.sandbox)
        "Section: net\nPriority: optional\n"
        f"Homepage: {app_identity.HOMEPAGE}\n"
        f"Description: {summary.strip() or app_identity.DISPLAY_NAME} - LLM chat client\n"
        " A native desktop chat client for large language models (OpenAI-compatible\n"
        " servers, OpenRouter, LM Studio and more) with streaming answers, visible\n"
        " reasoning and tools. Sessions and settings stay in a local SQLite database.\n"
    )


def stage_deb(bundle: Path, staging: Path, arch: str) -> Path:
    """Lay out the package tree in ``staging`` (replaced) and return it."""
    if staging.exists():
        shutil.rmtree(staging)
    _copy_bundle(bundle, staging / INSTALL_DIR)
    usr_bin = staging / "usr/bin"
    usr_bin.mkdir(parents=True)
    (usr_bin / app_identity.EXECUTABLE).symlink_to(f"/{INSTALL_DIR}/{app_identity.EXECUTABLE}")
    apps = staging / "usr/share/applications"
    apps.mkdir(parents=True)
    shutil.copy2(DESKTOP_FILE, apps / f"{app_identity.APP_ID}.desktop")
    _install_icons(staging)
    metainfo = staging / "usr/share/metainfo"
    metainfo.mkdir(parents=True)
    shutil.copy2(METAINFO_FILE, metainfo / METAINFO_FILE.name)
    doc = staging / "usr/share/doc" / app_identity.DEB_PACKAGE
    doc.mkdir(parents=True)
    version = app_identity.identity().version
    (doc / "copyright").write_text(_copyright(version), encoding="utf-8")
    debian = staging / "DEBIAN"
    debian.mkdir()
    (debian / "control").write_text(_control(bundle, staging, arch), encoding="utf-8")
    for path in staging.rglob("*"):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() or _is_executable(path) else 0o644)
    return staging


def _is_executable(path: Path) -> bool:
    return bool(path.stat().st_mode & 0o111)


def build_deb(bundle: Path, out_dir: Path, work: Path, *, compression: str = "xz") -> Path:
    """``<out_dir>/assista_<version>_<arch>.deb`` from the bundle."""
    if shutil.which("dpkg-deb") is None:
        raise PackagingError("dpkg-deb not found (apt-get install dpkg-dev)")
    arch = deb_architecture()
    staging = stage_deb(bundle, work / "deb-root", arch)
    version = app_identity.identity().deb_version
    out_dir.mkdir(parents=True, exist_ok=True)
    deb = out_dir / f"{app_identity.DEB_PACKAGE}_{version}_{arch}.deb"
    cmd = ["dpkg-deb", "--root-owner-group", f"-Z{compression}", "--build", str(staging),
           str(deb)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise PackagingError(f"dpkg-deb failed: {done.stderr.strip().splitlines()[-1:]}")
    return deb


def _tar_filter(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


def build_tarball(bundle: Path, out_dir: Path, machine: str) -> Path:
    """``<out_dir>/assista-<version>-linux-<machine>.tar.gz`` holding ``assista/``."""
    version = app_identity.identity().version
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{app_identity.EXECUTABLE}-{version}-linux-{machine}.tar.gz"
    with tarfile.open(target, "w:gz", compresslevel=6) as tar:
        tar.add(bundle, arcname=app_identity.EXECUTABLE, filter=_tar_filter)
    return target


def stage_appdir(bundle: Path, appdir: Path) -> Path:
    """An AppDir for ``appimagetool`` (bundle in usr/lib/assista, AppRun, icon, entry)."""
    if appdir.exists():
        shutil.rmtree(appdir)
    _copy_bundle(bundle, appdir / "usr/lib" / app_identity.EXECUTABLE)
    shutil.copy2(APPRUN, appdir / "AppRun")
    (appdir / "AppRun").chmod(0o755)
    shutil.copy2(DESKTOP_FILE, appdir / f"{app_identity.APP_ID}.desktop")
    shutil.copy2(ICONS / "png" / "assista-256.png", appdir / f"{app_identity.APP_ID}.png")
    (appdir / ".DirIcon").symlink_to(f"{app_identity.APP_ID}.png")
    _install_icons(appdir)
    metainfo = appdir / "usr/share/metainfo"
    metainfo.mkdir(parents=True)
    # appimagetool looks for <id>.appdata.xml
    shutil.copy2(METAINFO_FILE, metainfo / f"{app_identity.APP_ID}.appdata.xml")
    return appdir


def build_appimage(bundle: Path, out_dir: Path, work: Path, machine: str) -> Path:
    """``<out_dir>/Assista-<version>-<machine>.AppImage`` (needs ``appimagetool``)."""
    appdir = stage_appdir(bundle, work / "AppDir")
    tool = shutil.which("appimagetool")
    if tool is None:
        raise PackagingError(f"appimagetool not found; the AppDir is ready in {appdir} "
                             "(see packaging/README.md, 'AppImage')")
    version = app_identity.identity().version
    target = out_dir / f"{app_identity.APP_NAME}-{version}-{machine}.AppImage"
    env = {**os.environ, "ARCH": machine, "VERSION": version}
    done = subprocess.run([tool, "--no-appstream", str(appdir), str(target)],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise PackagingError(f"appimagetool failed: {done.stderr.strip()[-300:]}")
    return target
