#!/usr/bin/env python3
"""Check the .deb's ``Depends:`` in clean Debian roots (``mmdebstrap --variant=minbase``).

``python packaging/deb_probe.py [--deb dist/assista_<v>_<arch>.deb] [--xcb]`` (as root):

1. **bare root** (minbase only): unpack the .deb (``dpkg -x``), run ``ldd`` on every ELF
   file under /opt/assista: the sonames reported "not found" are exactly what the system
   must provide. Each must map to a package in ``linux/depends.txt``, and every package
   in the .deb's ``Depends:`` must provide at least one of them (nothing extra).
2. **root with Depends** (minbase + ``--include`` of the Depends): ``dpkg -i`` the .deb
   (dpkg refuses if a dependency is unmet), ``ldd`` finds nothing missing, then
   ``assista --version`` and ``assista --smoke`` under ``QT_QPA_PLATFORM=offscreen``.
3. with ``--xcb``, the same root plus ``xvfb``: ``--smoke`` on the X11 (xcb) backend.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import app_identity
import linux_libs
from elf import is_elf
from linux_packages import read_depends

ROOT = app_identity.ROOT
INSTALL = f"/opt/{app_identity.DEB_PACKAGE}"
SMOKE = f"QT_QPA_PLATFORM=offscreen {app_identity.EXECUTABLE} --smoke --data-dir /tmp/smoke"


def say(text: str) -> None:
    print(f"[deb-probe] {text}", flush=True)


def mmdebstrap(target: Path, suite: str, mirror: str, include: list[str]) -> float:
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["mmdebstrap", "--variant=minbase", "--mode=root", "--quiet"]
    if include:
        cmd.append("--include=" + ",".join(include))
    cmd += [suite, str(target), mirror]
    start = time.perf_counter()
    if subprocess.run(cmd, check=False).returncode != 0:
        raise SystemExit(f"deb_probe: mmdebstrap failed for {target.name} ({' '.join(cmd)})")
    return time.perf_counter() - start


def in_root(root: Path, script: str) -> subprocess.CompletedProcess[str]:
    """Run ``sh -c script`` chrooted in ``root`` with /proc mounted (private namespace)."""
    inner = 'mount -t proc proc "$0/proc" && exec chroot "$0" /bin/sh -c "$1"'
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "--fork", "sh", "-c", inner,
         str(root), f"export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root; {script}"],
        capture_output=True, text=True, check=False,
    )


def elf_files(root: Path) -> list[str]:
    base = root / INSTALL.lstrip("/")
    return sorted(
        "/" + path.relative_to(root).as_posix()
        for path in base.rglob("*")
        if path.is_file() and not path.is_symlink() and is_elf(path)
    )


def missing_sonames(root: Path) -> dict[str, list[str]]:
    """Soname -> files under /opt/assista for which ``ldd`` in ``root`` says "not found"."""
    files = elf_files(root)
    listing = root / "tmp" / "elf-files"
    listing.write_text("\n".join(files) + "\n", encoding="utf-8")
    # The bundle's bootloader re-executes itself with LD_LIBRARY_PATH=<bundle>/_internal.
    done = in_root(root, f"export LD_LIBRARY_PATH={INSTALL}/_internal; "
                   'while read f; do echo "== $f"; ldd "$f" 2>&1; done < /tmp/elf-files')
    missing: dict[str, list[str]] = {}
    current = ""
    for line in done.stdout.splitlines():
        if line.startswith("== "):
            current = line[3:]
            continue
        match = re.match(r"\s*(\S+) => not found", line)
        if match:
            missing.setdefault(match.group(1), []).append(current)
    return dict(sorted(missing.items()))


def deb_depends(deb: Path) -> list[str]:
    field = subprocess.run(["dpkg-deb", "-f", str(deb), "Depends"], capture_output=True,
                           text=True, check=True).stdout
    return [part.strip() for part in field.split(",") if part.strip()]


def check_exactness(needs: set[str], missing: set[str], depends: list[str]) -> list[str]:
    """Problems with ``Depends`` given what the bundle needs from the system (``needs``,
    from its ELF headers) and what a bare minbase root lacks (``missing``, from ldd)."""
    by_soname = {s: e.name for e in read_depends() for s in e.sonames}
    depended = {package.split(" ", 1)[0] for package in depends}
    problems = [f"ldd misses {soname}, which the bundle should carry"
                for soname in sorted(missing - needs)]
    problems += [f"the bundle needs {soname}, and no Depends package provides it"
                 for soname in sorted(needs) if by_soname.get(soname) not in depended]
    used = {by_soname[soname] for soname in needs if soname in by_soname}
    problems += [f"Depends lists {name}, which provides nothing the bundle needs"
                 for name in sorted(depended - used)]
    return problems


def probe(deb: Path, work: Path, suite: str, mirror: str, xcb: bool) -> int:
    depends = deb_depends(deb)
    names = [p.split(" ", 1)[0] for p in depends]
    say(f"{deb.name}: Depends: {', '.join(depends)}")

    bare = work / "bare"
    say(f"bare minbase root: {mmdebstrap(bare, suite, mirror, []):.0f} s")
    subprocess.run(["dpkg", "-x", str(deb), str(bare)], check=True)
    missing = missing_sonames(bare)
    needs = set(linux_libs.system_needs(bare / INSTALL.lstrip("/")))
    say(f"the bundle needs {len(needs)} sonames from the system; a bare minbase root has "
        f"{len(needs - set(missing))} ({', '.join(sorted(needs - set(missing)))})")
    say(f"without Depends, ldd finds {len(missing)} missing: {', '.join(missing)}")
    start = in_root(bare, f"QT_QPA_PLATFORM=offscreen {INSTALL}/{app_identity.EXECUTABLE} "
                    "--smoke --data-dir /tmp/smoke")
    errors = [line for line in start.stderr.splitlines() if "Error" in line and "[PYI" not in line]
    say(f"starting it there: exit {start.returncode} ({(errors or ['-'])[-1][:160]})")
    problems = check_exactness(needs, set(missing), depends)

    full = work / "with-depends"
    say(f"minbase root + Depends: {mmdebstrap(full, suite, mirror, names):.0f} s")
    shutil.copy2(deb, full / "tmp" / deb.name)
    install = in_root(full, f"dpkg -i /tmp/{deb.name}")
    if install.returncode != 0:
        problems.append(f"dpkg -i failed: {install.stderr.strip().splitlines()[-1:]}")
    still = missing_sonames(full)
    if still:
        problems.append(f"with Depends installed, still missing: {', '.join(still)}")
    version = in_root(full, f"{app_identity.EXECUTABLE} --version")
    say(f"/usr/bin/assista --version: {version.stdout.strip()} (exit {version.returncode})")
    smoke = in_root(full, SMOKE)
    say(f"--smoke offscreen: exit {smoke.returncode}: {smoke.stdout.strip()}")
    for line in sorted(set(smoke.stderr.strip().splitlines()))[:8]:
        say(f"  stderr: {line[:160]}")
    if version.returncode != 0 or smoke.returncode != 0 or "smoke ok" not in smoke.stdout:
        problems.append(f"the installed app did not start: {smoke.stderr.strip()[-300:]}")
    if xcb:  # xvfb comes after the checks above, so its libraries cannot hide a gap
        shutil.copy2("/etc/resolv.conf", full / "etc" / "resolv.conf")
        added = in_root(full, "apt-get update -qq && DEBIAN_FRONTEND=noninteractive "
                        "apt-get install -y -qq --no-install-recommends xvfb xauth")
        if added.returncode != 0:
            problems.append(f"could not install xvfb: {added.stderr.strip()[-200:]}")
        x11 = in_root(full, "QT_QPA_PLATFORM=xcb xvfb-run -a "
                      f"{app_identity.EXECUTABLE} --smoke --data-dir /tmp/smoke-x11")
        say(f"--smoke on xcb (Xvfb): exit {x11.returncode}: {x11.stdout.strip()}")
        if x11.returncode != 0:
            problems.append(f"xcb start failed: {x11.stderr.strip()[-300:]}")
    for problem in problems:
        say(f"PROBLEM: {problem}")
    say("Depends verified: exactly what the bundle needs" if not problems else "FAILED")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deb", type=Path, help="default: the newest dist/*.deb")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "deb-probe")
    parser.add_argument("--suite", default="bookworm")
    parser.add_argument("--mirror", default="http://deb.debian.org/debian")
    parser.add_argument("--xcb", action="store_true", help="also start on X11 under Xvfb")
    parser.add_argument("--keep", action="store_true", help="keep the roots in --work")
    args = parser.parse_args(argv)
    if os.geteuid() != 0 or shutil.which("mmdebstrap") is None:
        print("deb_probe: needs root and mmdebstrap (apt-get install mmdebstrap)")
        return 2
    deb = args.deb or max((ROOT / "dist").glob("*.deb"), key=lambda p: p.stat().st_mtime,
                          default=None)
    if deb is None:
        print("deb_probe: no .deb (build one: python packaging/build.py)")
        return 2
    try:
        return probe(deb.resolve(), args.work.resolve(), args.suite, args.mirror, args.xcb)
    finally:
        if not args.keep:
            shutil.rmtree(args.work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
