"""ELF reading, the library prune in the spec, and what a bundle needs from the system."""

from __future__ import annotations

import sys
from pathlib import Path

import elf
import linux_libs
import pytest

from tests.packaging.elf_fixture import write_elf


def test_reads_needed_soname_and_versions(tmp_path: Path) -> None:
    path = write_elf(tmp_path / "libx.so.1", ["libc.so.6", "libm.so.6"], soname="libx.so.1",
                     versions={"libc.so.6": ["GLIBC_2.17", "GLIBC_2.34"],
                               "libstdc++.so.6": ["GLIBCXX_3.4.29", "CXXABI_1.3"]})
    info = elf.read_elf(path)
    assert info is not None
    assert info.needed == ["libc.so.6", "libm.so.6"]
    assert info.soname == "libx.so.1"
    assert info.version_needs["libc.so.6"] == {"GLIBC_2.17", "GLIBC_2.34"}
    assert elf.highest_version([info], "GLIBC") == "GLIBC_2.34"
    assert elf.highest_version([info], "GLIBCXX") == "GLIBCXX_3.4.29"


def test_version_order_is_numeric() -> None:
    assert elf.version_key("GLIBC_2.9") < elf.version_key("GLIBC_2.17")
    assert max(["GLIBC_2.9", "GLIBC_2.17"], key=elf.version_key) == "GLIBC_2.17"


def test_non_elf_is_ignored(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello", encoding="utf-8")
    assert not elf.is_elf(text)
    assert elf.read_elf(text) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF host binaries")
def test_reads_a_real_binary() -> None:
    info = elf.read_elf(Path(sys.executable).resolve())
    assert info is not None
    assert any(name.startswith("libc.so") or name.startswith("libpython")
               for name in info.needed)


def test_prune_keeps_what_roots_need(tmp_path: Path) -> None:
    lib = tmp_path / "src"
    toc = [
        ("PySide6/Qt/plugins/platforms/libqxcb.so",
         str(write_elf(lib / "libqxcb.so", ["libA.so.1", "libc.so.6"])), "BINARY"),
        ("_ssl.cpython-311-x86_64-linux-gnu.so",
         str(write_elf(lib / "_ssl.so", ["libssl.so.3"])), "EXTENSION"),
        ("libA.so.1", str(write_elf(lib / "libA.so.1", ["libB.so.2", "libfontconfig.so.1"])),
         "BINARY"),
        ("libB.so.2", str(write_elf(lib / "libB.so.2", [])), "BINARY"),
        ("libssl.so.3", str(write_elf(lib / "libssl.so.3", [])), "BINARY"),
        ("libunused.so.3", str(write_elf(lib / "libunused.so.3", [])), "BINARY"),
        ("libfontconfig.so.1", str(write_elf(lib / "libfontconfig.so.1", ["libC.so.1"])),
         "BINARY"),
        ("libC.so.1", str(write_elf(lib / "libC.so.1", [])), "BINARY"),
    ]
    kept, dropped = linux_libs.prune_binaries(toc)
    assert [entry[0] for entry in kept] == [
        "PySide6/Qt/plugins/platforms/libqxcb.so", "_ssl.cpython-311-x86_64-linux-gnu.so",
        "libA.so.1", "libB.so.2", "libssl.so.3"]
    # fontconfig is the system's; libC was only there for it; libunused for nothing
    assert dropped == ["libC.so.1", "libfontconfig.so.1", "libunused.so.3"]


def test_system_needs_and_floors(tmp_path: Path) -> None:
    bundle = tmp_path / "assista"
    write_elf(bundle / "assista", ["libc.so.6"], versions={"libc.so.6": ["GLIBC_2.28"]})
    write_elf(bundle / "_internal" / "libQt6Gui.so.6", ["libGL.so.1", "libicuuc.so.73"],
              versions={"libc.so.6": ["GLIBC_2.34"]})
    write_elf(bundle / "_internal" / "libicuuc.so.73", ["libc.so.6"])
    needs = linux_libs.system_needs(bundle)
    assert needs == {"libGL.so.1": ["_internal/libQt6Gui.so.6"],
                     "libc.so.6": ["_internal/libicuuc.so.73", "assista"]}
    found = linux_libs.floors(linux_libs.scan_bundle(bundle))
    assert found == {"GLIBC": "GLIBC_2.34", "GLIBCXX": None}
