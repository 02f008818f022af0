#!/usr/bin/env python3
"""Generate the icon set in ``resources/icons/`` from ``resources/icons/assista.svg``.

``python packaging/make_icons.py`` renders the SVG with Qt's SVG renderer (PySide6 is
already an app dependency, so nothing else is needed) and writes:

* ``png/assista-<N>.png`` for N in :data:`PNG_SIZES` (hicolor theme sizes, 16..512)
* ``assista.ico`` — Windows icon, sizes :data:`ICO_SIZES`, every entry PNG-compressed
  (Windows Vista and later, NSIS 3 and PyInstaller all read these)
* ``assista.icns`` — macOS icon, PNG entries ``icp4``..``ic10`` (16 pt to 512 pt @2x)

The ICO and ICNS containers are written here by hand (both are a small header, a table
and the PNG payloads), so the output is the same on every OS. Re-run after editing the
SVG and commit the results; ``tests/packaging/test_icons.py`` checks they are current.
"""

from __future__ import annotations

import os
import struct
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ICON_DIR = ROOT / "resources" / "icons"
SVG = ICON_DIR / "assista.svg"
PNG_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
#: ICNS element type -> pixel size (Apple's "Icon Composer" PNG element types).
ICNS_TYPES = (
    (b"icp4", 16), (b"icp5", 32), (b"ic11", 32), (b"icp6", 64), (b"ic12", 64),
    (b"ic07", 128), (b"ic13", 256), (b"ic08", 256), (b"ic14", 512), (b"ic09", 512),
    (b"ic10", 1024),
)


def render_pngs(svg: Path, sizes: Iterable[int]) -> dict[int, bytes]:
    """PNG bytes of ``svg`` rendered square at every size (transparent background)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"make_icons: cannot read {svg}")
    out: dict[int, bytes] = {}
    for size in sorted(set(sizes)):
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(0)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter, QRectF(0, 0, size, size))
        painter.end()
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")  # type: ignore[call-overload]  # stub says bytes; runtime wants str
        buffer.close()
        out[size] = bytes(data.data())
    del app
    return out


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico holding one PNG-compressed image per size (largest last)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))  # reserved, type 1 = icon, count
    offset = 6 + 16 * len(sizes)
    table = b""
    payload = b""
    for size in sizes:
        data = pngs[size]
        dim = 0 if size >= 256 else size  # 0 means 256 in the directory entry
        table += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset)
        offset += len(data)
        payload += data
    return header + table + payload


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """A macOS .icns with PNG elements (readable by macOS 10.7+ and iconutil)."""
    body = b""
    for kind, size in ICNS_TYPES:
        data = pngs[size]
        body += kind + struct.pack(">I", 8 + len(data)) + data
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def expected_files(svg: Path = SVG) -> dict[str, bytes]:
    """Relative path under ``resources/icons`` -> content, for every generated file."""
    pngs = render_pngs(svg, (*PNG_SIZES, *ICO_SIZES, *(s for _, s in ICNS_TYPES)))
    files = {f"png/assista-{size}.png": pngs[size] for size in PNG_SIZES}
    files["assista.ico"] = ico_bytes({size: pngs[size] for size in ICO_SIZES})
    files["assista.icns"] = icns_bytes(pngs)
    return files


def main() -> int:
    files = expected_files()
    for name, content in files.items():
        target = ICON_DIR / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_bytes() != content:
            target.write_bytes(content)
            print(f"wrote {target.relative_to(ROOT)} ({len(content):,} bytes)")
    print(f"icon set up to date in {ICON_DIR.relative_to(ROOT)} ({len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
