"""The bundled icon set: every SVG renders, in the theme's colour, at any pixel density;
icon buttons carry a tooltip and an accessible name."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QIcon, QImage
from PySide6.QtWidgets import QApplication

from desktop.ui import icons, theme

ICON_DIR = Path(__file__).resolve().parents[2] / "resources" / "icons" / "ui"


@pytest.fixture(autouse=True)
def _light(qapp: QApplication) -> Iterator[None]:
    theme.apply_theme(qapp, "light")
    yield
    theme.apply_theme(qapp, "light")


def _ink(image: QImage) -> Counter[str]:
    """The colours of the opaque pixels (the strokes' cores, not their anti-aliasing)."""
    return Counter(image.pixelColor(x, y).name() for x in range(image.width())
                   for y in range(image.height()) if image.pixelColor(x, y).alpha() > 200)


def test_the_set_is_bundled_with_its_licence() -> None:
    names = sorted(path.stem for path in ICON_DIR.glob("*.svg"))
    assert len(names) >= 30
    assert "ISC License" in (ICON_DIR / "LICENSE").read_text()
    for name in names:
        assert b"currentColor" in icons.svg_source(name), name  # recolourable


def test_every_icon_renders_in_the_theme_colour(qapp: QApplication) -> None:
    for path in ICON_DIR.glob("*.svg"):
        ink = _ink(icons.icon(path.stem).pixmap(QSize(24, 24)).toImage())
        assert ink, f"{path.name} drew nothing"
        assert ink.most_common(1)[0][0] == theme.LIGHT["text"]
    theme.apply_theme(qapp, "dark")
    ink = _ink(icons.icon("paperclip").pixmap(QSize(24, 24)).toImage())
    assert ink.most_common(1)[0][0] == theme.DARK["text"]
    accent = _ink(icons.icon("send-horizontal", "accent").pixmap(QSize(24, 24)).toImage())
    assert accent.most_common(1)[0][0] == theme.DARK["accent"]


def test_rendered_at_the_screen_density_not_scaled_up() -> None:
    pixmap = icons.icon("folder").pixmap(QSize(16, 16), 2.0)
    assert pixmap.devicePixelRatio() == 2.0
    assert (pixmap.width(), pixmap.height()) == (32, 32)
    sharp = _ink(pixmap.toImage())
    assert sum(sharp.values()) > 4 * sum(_ink(icons.icon("folder").pixmap(
        QSize(16, 16)).toImage()).values()) * 0.7


def test_disabled_icons_are_muted() -> None:
    image = icons.icon("folder").pixmap(QSize(24, 24), QIcon.Mode.Disabled).toImage()
    colours = {QColor(image.pixelColor(x, y)).rgb() & 0xFFFFFF for x in range(24)
               for y in range(24) if image.pixelColor(x, y).alpha() > 60}
    assert colours and QColor(theme.LIGHT["text"]).rgb() & 0xFFFFFF not in colours


def test_unknown_names_fail_loudly() -> None:
    with pytest.raises(KeyError, match="no-such-icon"):
        icons.icon("no-such-icon")


def test_icon_buttons_say_what_they_do(qapp: QApplication) -> None:
    button = icons.icon_button("paperclip", "Attach images or text files (Ctrl+O)")
    assert button.toolTip().startswith("Attach")
    assert button.accessibleName() == "Attach images or text files"
    assert not button.icon().isNull()
    assert button.iconSize() == QSize(18, 18) or button.iconSize().width() > 0


def test_icons_grow_with_the_zoom(qapp: QApplication) -> None:
    button = icons.icon_button("folder", "Folder")
    button.ensurePolished()
    before = button.iconSize().width()
    theme.set_zoom(5)
    try:
        button.ensurePolished()
        assert button.iconSize().width() > before
        assert icons.icon_px() > icons.BASE_ICON_PX
    finally:
        theme.set_zoom(0)
