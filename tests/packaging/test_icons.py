"""The committed icon set matches its SVG source and holds every size installers use."""

from __future__ import annotations

import struct
from pathlib import Path

import make_icons
import pytest
from PySide6.QtGui import QImage, QImageReader
from PySide6.QtWidgets import QApplication

ICONS = Path(__file__).resolve().parents[2] / "resources" / "icons"


@pytest.fixture
def app(qapp: QApplication) -> QApplication:
    """Image plugins need an application (pytest-qt's, shared with the widget tests)."""
    return qapp


def _frames(path: Path) -> list[int]:
    reader = QImageReader(str(path))
    sizes = []
    for index in range(reader.imageCount()):
        reader.jumpToImage(index)
        image = reader.read()
        assert not image.isNull(), f"{path.name} frame {index}: {reader.errorString()}"
        assert image.width() == image.height()
        sizes.append(image.width())
    return sizes


def _same_pixels(a: QImage, b: QImage, tolerance: int = 8) -> bool:
    """Equal up to small anti-aliasing differences (another Qt/zlib renders the same SVG
    into different PNG bytes, but not into a different picture)."""
    a = a.convertToFormat(QImage.Format.Format_ARGB32)
    b = b.convertToFormat(QImage.Format.Format_ARGB32)
    if a.size() != b.size():
        return False
    raw_a, raw_b = bytes(a.constBits()), bytes(b.constBits())
    return max(abs(x - y) for x, y in zip(raw_a, raw_b, strict=True)) <= tolerance


def test_committed_pngs_are_rendered_from_the_svg(app: QApplication) -> None:
    expected = make_icons.expected_files()
    stale = []
    for name, content in expected.items():
        committed = ICONS / name
        if (name.endswith(".png") and committed.read_bytes() != content
                and not _same_pixels(QImage(str(committed)), QImage.fromData(content))):
            stale.append(name)
    assert not stale, f"run python packaging/make_icons.py (stale: {stale})"


def test_png_sizes(app: QApplication) -> None:
    for size in make_icons.PNG_SIZES:
        reader = QImageReader(str(ICONS / "png" / f"assista-{size}.png"))
        assert reader.size().width() == size
        assert reader.size().height() == size
    assert set(make_icons.PNG_SIZES) >= {16, 32, 48, 64, 128, 256, 512}


def test_ico_has_every_windows_size(app: QApplication) -> None:
    data = (ICONS / "assista.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data)
    assert (reserved, kind, count) == (0, 1, len(make_icons.ICO_SIZES))
    assert _frames(ICONS / "assista.ico") == list(make_icons.ICO_SIZES)


def test_icns_has_retina_sizes(app: QApplication) -> None:
    data = (ICONS / "assista.icns").read_bytes()
    assert data[:4] == b"icns"
    assert struct.unpack_from(">I", data, 4)[0] == len(data)
    sizes = _frames(ICONS / "assista.icns")
    assert max(sizes) == 1024  # 512 pt @2x
    assert {16, 32, 64, 128, 256, 512} <= set(sizes)


def test_ico_writer_layout() -> None:
    pngs = {16: b"\x89PNG-a", 256: b"\x89PNG-bb"}
    data = make_icons.ico_bytes(pngs)
    entries = [struct.unpack_from("<BBBBHHII", data, 6 + 16 * i) for i in range(2)]
    assert entries[0][0] == 16 and entries[1][0] == 0  # 0 encodes 256
    assert data[entries[1][7]:entries[1][7] + entries[1][6]] == b"\x89PNG-bb"
