"""The app's icons: Lucide SVGs (ISC licence, resources/icons/ui/) drawn in the theme's
colours at whatever size and pixel density they are asked for.

``icon("paperclip")`` gives a :class:`QIcon` whose pixmaps are rendered when Qt asks for
them, in the current theme's colour (``role`` names a colour of ``theme.colors()``):
switching light/dark repaints it in the new colour without anyone re-setting it, and a
200 % screen gets a 200 % rendering rather than a blurred 100 % one. Disabled icons are
drawn in the muted colour, half transparent.

``icon_button(...)`` makes the standard borderless icon button with the tooltip and
accessible name every icon-only button needs (a screen reader has nothing else).
The names are the Lucide file names (https://lucide.dev/icons); only the ones the app
uses are bundled: add an SVG from the ``lucide-static`` npm package to use another.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QRect, QRectF, QSize, Qt
from PySide6.QtGui import QIcon, QIconEngine, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QAbstractButton, QToolButton, QWidget

from desktop.resources import resources_dir
from desktop.ui import theme

#: Lucide draws on a 24 px grid with 2 px strokes; at 16 px that is ~1.3 px.
BASE_ICON_PX = 16
_PIXMAP_CACHE_LIMIT = 512


def icon_dir() -> str:
    folder = resources_dir()
    return str(folder / "icons" / "ui") if folder is not None else ""


@cache
def svg_source(name: str) -> bytes:
    """The SVG text of icon ``name``; KeyError (with the name) if it is not bundled —
    a typo should fail in the first test that builds the widget, not draw nothing."""
    folder = icon_dir()
    try:
        with open(f"{folder}/{name}.svg", "rb") as file:
            return file.read()
    except OSError:
        raise KeyError(f"no bundled icon {name!r} in {folder or 'resources/icons/ui'}") from None


def _renderer(name: str, color: str) -> QSvgRenderer:
    # Lucide strokes with currentColor; Qt's SVG renderer has no CSS colour context.
    return QSvgRenderer(svg_source(name).replace(b"currentColor", color.encode("ascii")))


_pixmaps: dict[tuple[str, str, float, int, int, float], QPixmap] = {}


def render(name: str, color: str, size: QSize, scale: float = 1.0,
           opacity: float = 1.0) -> QPixmap:
    """Icon ``name`` in ``color`` (``#rrggbb``), ``size`` logical pixels at device pixel
    ratio ``scale``."""
    key = (name, color, opacity, size.width(), size.height(), scale)
    cached = _pixmaps.get(key)
    if cached is not None:
        return cached
    pixmap = QPixmap(max(1, round(size.width() * scale)), max(1, round(size.height() * scale)))
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setOpacity(opacity)
    _renderer(name, color).render(painter, QRectF(pixmap.rect()))
    painter.end()
    pixmap.setDevicePixelRatio(scale)
    if len(_pixmaps) >= _PIXMAP_CACHE_LIMIT:
        _pixmaps.clear()  # (a theme switch or zoom leaves the old entries unused)
    _pixmaps[key] = pixmap
    return pixmap


def color_for(role: str, mode: QIcon.Mode) -> tuple[str, float]:
    """The colour and opacity an icon of ``role`` is drawn in, now, for ``mode``."""
    colors = theme.colors()
    if mode == QIcon.Mode.Disabled:
        return colors["muted"], 0.55
    return colors.get(role, colors["text"]), 1.0


class ThemedSvgIconEngine(QIconEngine):
    """Renders one SVG on demand, in the theme's colour of the moment."""

    def __init__(self, name: str, role: str) -> None:
        super().__init__()
        svg_source(name)  # fail now on an unknown name
        self.name = name
        self.role = role

    def clone(self) -> QIconEngine:
        return ThemedSvgIconEngine(self.name, self.role)

    def key(self) -> str:
        return "assista-themed-svg"

    def isNull(self) -> bool:
        return False

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode,
              state: QIcon.State) -> None:
        scale = painter.device().devicePixelRatioF() if painter.device() else 1.0
        painter.drawPixmap(rect, self.scaledPixmap(rect.size(), mode, state, scale))

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return self.scaledPixmap(size, mode, state, 1.0)

    def scaledPixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State,
                     scale: float) -> QPixmap:
        color, opacity = color_for(self.role, mode)
        return render(self.name, color, size, scale, opacity)

    def actualSize(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QSize:
        return size  # a vector: any size is exact


def icon(name: str, role: str = "text") -> QIcon:
    """Lucide icon ``name`` in the theme colour ``role`` ("text", "muted", "accent",
    "accent_text", "error", "ok", "warn"...)."""
    return QIcon(ThemedSvgIconEngine(name, role))


def icon_px() -> int:
    """The side of a small icon at the current zoom and base font size."""
    return round(BASE_ICON_PX * theme.ui_scale())


def icon_size() -> QSize:
    side = icon_px()
    return QSize(side, side)


def icon_button(name: str, tooltip: str, accessible_name: str | None = None,
                parent: QWidget | None = None, role: str = "text") -> QToolButton:
    """A borderless icon-only button (object name ``iconButton``, styled by the theme)
    with its tooltip and accessible name."""
    button = QToolButton(parent)
    button.setObjectName("iconButton")
    set_icon(button, name, tooltip, accessible_name, role)
    button.setAutoRaise(True)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    return button


def set_icon(button: QToolButton | QWidget, name: str, tooltip: str,
             accessible_name: str | None = None, role: str = "text") -> None:
    """Give ``button`` (a QAbstractButton) icon ``name``, a tooltip and an accessible
    name (the tooltip's first line unless given)."""
    if isinstance(button, QAbstractButton):
        button.setIcon(icon(name, role))
    button.setToolTip(tooltip)
    first_line = tooltip.partition("\n")[0]
    button.setAccessibleName(accessible_name or first_line.partition(" (")[0])
