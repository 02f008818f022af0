"""Typeset math (SVG from :mod:`desktop.ui.markdown.math_tex`) drawn into images for Qt text."""

from __future__ import annotations

import math
from collections import OrderedDict

from PySide6.QtCore import QByteArray, QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from desktop.ui.markdown import math_tex

_CACHE_SIZE = 512
_cache: OrderedDict[tuple[str, int, int, int], QImage] = OrderedDict()
AXIS = 0.25  # the math axis, in em above the baseline


def math_image(key: str, font_px: float, color: QColor, dpr: float = 1.0) -> QImage | None:
    """The formula ``key`` at ``font_px`` in ``color``; inline formulas are padded so
    that their math axis sits at the image's middle (they are laid out middle-aligned)."""
    entry = math_tex.entry(key)
    if entry is None:
        return None
    cache_key = (key, round(font_px * 10), color.rgba(), round(dpr * 100))
    image = _cache.get(cache_key)
    if image is not None:
        _cache.move_to_end(cache_key)
        return image
    image = _draw(entry, font_px, color, dpr)
    _cache[cache_key] = image
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return image


def _draw(entry: math_tex.MathEntry, font_px: float, color: QColor, dpr: float) -> QImage:
    scale = font_px / math_tex.BASE_SIZE
    axis = AXIS * math_tex.BASE_SIZE
    pad_top = pad_bottom = 0.0
    if not entry.display:
        above, below = entry.ascent - axis, entry.descent + axis
        half = max(above, below)
        pad_top, pad_bottom = half - above, half - below
    else:
        pad_top = pad_bottom = 0.1 * math_tex.BASE_SIZE
    height = entry.ascent + entry.descent + pad_top + pad_bottom
    factor = scale * dpr
    image = QImage(max(1, math.ceil(entry.width * factor)), max(1, math.ceil(height * factor)),
                   QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    renderer = QSvgRenderer(QByteArray(entry.svg))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, pad_top * factor, entry.width * factor,
                                    (entry.ascent + entry.descent) * factor))
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
    painter.fillRect(image.rect(), color)
    painter.end()
    image.setDevicePixelRatio(dpr)
    return image
