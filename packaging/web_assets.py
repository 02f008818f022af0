#!/usr/bin/env python3
"""Fetch the web code the app's previews run into ``resources/web/`` (not committed).

mermaid.js (the diagram previews, see ``desktop/core/page_preview.py``) comes from the
npm registry with ``npm pack`` at build time, pinned, with its licence beside it; the
bundle carries ``resources/`` whole. Without npm the previews say mermaid is missing.
Only the standard library is used (dev.py and build.py call it before installing).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "resources" / "web"
MERMAID = "mermaid@11.17.2"
#: (file inside the npm package, name under resources/web/mermaid/)
MERMAID_FILES = (("package/dist/mermaid.min.js", "mermaid.min.js"),
                 ("package/LICENSE", "LICENSE"))


def fetch_mermaid(target: Path = WEB / "mermaid") -> Path | None:
    """``target`` holding mermaid.min.js, LICENSE and VERSION; None without npm."""
    if (target / "VERSION").is_file() and (target / "VERSION").read_text().strip() == MERMAID:
        return target
    npm = shutil.which("npm")
    if npm is None:
        print("web assets: npm not found; the mermaid previews will say mermaid is missing",
              file=sys.stderr)
        return None
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([npm, "pack", MERMAID, "--silent"], cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL)
        [packed] = Path(tmp).glob("*.tgz")
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(packed) as archive:
            for inner, name in MERMAID_FILES:
                source = archive.extractfile(inner)
                if source is None:
                    raise SystemExit(f"web assets: {inner} missing from {MERMAID}")
                (target / name).write_bytes(source.read())
    (target / "VERSION").write_text(MERMAID + "\n")
    return target


if __name__ == "__main__":
    found = fetch_mermaid()
    print(f"web assets: {found or 'not fetched'}")
