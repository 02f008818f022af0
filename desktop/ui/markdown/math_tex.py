"""TeX to SVG with ziamath (pure Python, bundled STIX math font), cached by content.

:func:`register` typesets once and returns a stable key (so the same TeX always gives
the same HTML), or ``None`` when the TeX cannot be typeset and should stay text.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import warnings

import msgspec

log = logging.getLogger(__name__)

BASE_SIZE = 20.0  # px the SVG is typeset at; images are scaled from it
MAX_TEX = 4000
_VIEWBOX = re.compile(r'viewBox="([-\d.e]+) ([-\d.e]+) ([-\d.e]+) ([-\d.e]+)"')


class MathEntry(msgspec.Struct, frozen=True):
    """Typeset TeX: its SVG and the metrics to place it in a line."""

    tex: str
    display: bool
    svg: bytes
    width: float  # at BASE_SIZE
    ascent: float  # above the baseline
    descent: float  # below the baseline


_entries: dict[str, MathEntry] = {}
_failed: set[str] = set()
_lock = threading.Lock()


def key_for(tex: str, display: bool) -> str:
    digest = hashlib.sha1(f"{int(display)}:{tex}".encode(), usedforsecurity=False)
    return digest.hexdigest()[:20]


def register(tex: str, display: bool) -> str | None:
    key = key_for(tex, display)
    with _lock:
        if key in _entries:
            return key
        if key in _failed:
            return None
    entry = _typeset(tex, display)
    with _lock:
        if entry is None:
            _failed.add(key)
            return None
        _entries[key] = entry
    return key


def entry(key: str) -> MathEntry | None:
    return _entries.get(key)


def _typeset(tex: str, display: bool) -> MathEntry | None:
    if not tex.strip() or len(tex) > MAX_TEX:
        return None
    try:
        with warnings.catch_warnings():  # ziamath loads its font with a deprecated API
            warnings.simplefilter("ignore", DeprecationWarning)
            from ziamath.config import config
            from ziamath.zmath import Latex

            config.svg2 = False  # plain paths: Qt's SVG renderer lacks <symbol>
            svg = str(Latex(tex, size=BASE_SIZE, inline=not display).svg())
    except Exception as exc:  # ziamath raises many kinds on bad input
        log.debug("math left as text (%s): %.80s", type(exc).__name__, tex)
        return None
    match = _VIEWBOX.search(svg)
    if match is None or 'fill="red"' in svg:
        return None
    _x, y, width, height = (float(v) for v in match.groups())
    return MathEntry(tex, display, svg.encode(), width, -y, height + y)
