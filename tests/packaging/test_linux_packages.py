"""The .deb, tarball and AppDir layouts, built around a small fake bundle (fast)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

import app_identity
import linux_packages as lp
import pytest
from deb_probe import check_exactness

from tests.packaging.elf_fixture import write_elf

needs_dpkg = pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")


def fake_bundle(root: Path, extra_needed: tuple[str, ...] = ()) -> Path:
    bundle = root / "assista"
    exe = write_elf(bundle / "assista", ["libc.so.6", *extra_needed],
                    versions={"libc.so.6": ["GLIBC_2.34"]})
    exe.chmod(0o755)
    write_elf(bundle / "_internal" / "libQt6Gui.so.6", ["libGL.so.1", "libstdc++.so.6"],
              versions={"libstdc++.so.6": ["GLIBCXX_3.4.30"]})
    (bundle / "_internal" / "base_library.zip").write_bytes(b"PK")
    return bundle


def test_depends_file_is_well_formed() -> None:
    entries = lp.read_depends()
    names = [e.name for e in entries]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", n) for n in names)
    sonames = [s for e in entries for s in e.sonames]
    assert len(sonames) == len(set(sonames))
    assert {"libGL.so.1", "libxcb.so.1", "libfontconfig.so.1", "libc.so.6"} <= set(sonames)


def test_depends_field_uses_measured_floors(tmp_path: Path) -> None:
    field = lp.depends_field(fake_bundle(tmp_path))
    assert field == "libc6 (>= 2.34), libstdc++6 (>= 12), libgl1"


def test_unlisted_system_library_stops_the_build(tmp_path: Path) -> None:
    with pytest.raises(lp.PackagingError, match=r"libmystery\.so\.1"):
        lp.depends_field(fake_bundle(tmp_path, ("libmystery.so.1",)))


@needs_dpkg
def test_deb_layout(tmp_path: Path) -> None:
    bundle = fake_bundle(tmp_path / "dist")
    deb = lp.build_deb(bundle, tmp_path / "out", tmp_path / "work", compression="gzip")
    version = app_identity.identity().deb_version
    assert deb.name == f"assista_{version}_{lp.deb_architecture()}.deb"

    def field(name: str) -> str:
        return subprocess.run(["dpkg-deb", "-f", str(deb), name], capture_output=True,
                              text=True, check=True).stdout.strip()

    assert field("Package") == "assista"
    assert field("Version") == version
    assert field("Depends") == "libc6 (>= 2.34), libstdc++6 (>= 12), libgl1"
    root = tmp_path / "root"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    assert os.readlink(root / "usr/bin/assista") == "/opt/assista/assista"
    assert os.access(root / "opt/assista/assista", os.X_OK)
    assert (root / "opt/assista/_internal/base_library.zip").is_file()
    desktop = root / "usr/share/applications/assista-desktop.desktop"
    assert "Icon=assista-desktop" in desktop.read_text(encoding="utf-8")
    for size in (16, 32, 48, 64, 128, 256, 512):
        assert (root / f"usr/share/icons/hicolor/{size}x{size}/apps/assista-desktop.png").is_file()
    assert (root / "usr/share/icons/hicolor/scalable/apps/assista-desktop.svg").is_file()
    assert (root / "usr/share/metainfo/assista-desktop.metainfo.xml").is_file()
    assert "License: MIT" in (root / "usr/share/doc/assista/copyright").read_text("utf-8")
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True,
                             check=True).stdout
    assert all(" root/root " in line for line in listing.splitlines())


def test_desktop_entry_validates() -> None:
    if shutil.which("desktop-file-validate") is None:
        pytest.skip("needs desktop-file-validate (apt-get install desktop-file-utils)")
    done = subprocess.run(["desktop-file-validate", str(lp.DESKTOP_FILE)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout


def test_desktop_entry_matches_the_app() -> None:
    text = lp.DESKTOP_FILE.read_text(encoding="utf-8")
    assert f"Icon={app_identity.APP_ID}\n" in text
    assert f"Exec={app_identity.EXECUTABLE}\n" in text
    # Qt sets WM_CLASS to (executable name, application name); docks match the class.
    assert f"StartupWMClass={app_identity.APP_NAME}\n" in text


def test_metainfo() -> None:
    component = ET.parse(lp.METAINFO_FILE).getroot()
    assert component.findtext("id") == app_identity.APP_ID
    launchable = component.find("launchable")
    assert launchable is not None and launchable.text == f"{app_identity.APP_ID}.desktop"


def test_tarball(tmp_path: Path) -> None:
    bundle = fake_bundle(tmp_path / "dist")
    tarball = lp.build_tarball(bundle, tmp_path / "out", "x86_64")
    assert tarball.name == f"assista-{app_identity.identity().version}-linux-x86_64.tar.gz"
    with tarfile.open(tarball) as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert members["assista/assista"].mode & 0o111
    assert {m.uname for m in members.values()} == {"root"}


def test_appdir(tmp_path: Path) -> None:
    appdir = lp.stage_appdir(fake_bundle(tmp_path / "dist"), tmp_path / "AppDir")
    assert os.access(appdir / "AppRun", os.X_OK)
    assert "usr/lib/assista/assista" in (appdir / "AppRun").read_text(encoding="utf-8")
    assert (appdir / "usr/lib/assista/_internal/base_library.zip").is_file()
    assert os.readlink(appdir / ".DirIcon") == "assista-desktop.png"
    assert (appdir / "assista-desktop.desktop").is_file()
    assert (appdir / "usr/share/metainfo/assista-desktop.appdata.xml").is_file()


def test_probe_exactness_rules() -> None:
    depends = ["libc6 (>= 2.35)", "libgl1", "libxcb1 (>= 1.8)"]
    assert check_exactness({"libc.so.6", "libGL.so.1", "libxcb.so.1"}, {"libGL.so.1"},
                           depends) == []
    problems = check_exactness({"libc.so.6", "libGL.so.1"}, {"libGL.so.1", "libfoo.so.1"},
                               depends)
    assert problems == ["ldd misses libfoo.so.1, which the bundle should carry",
                        "Depends lists libxcb1, which provides nothing the bundle needs"]
    assert check_exactness({"libEGL.so.1"}, set(), ["libgl1"]) == [
        "the bundle needs libEGL.so.1, and no Depends package provides it",
        "Depends lists libgl1, which provides nothing the bundle needs"]
