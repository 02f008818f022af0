"""Light and dark looks: a palette plus one stylesheet with named colours; the
whole window's zoom; a ``changed`` signal widgets observe to restyle themselves.

The state is one :class:`Theme` object per application (created with it, found
through :func:`current`), not module globals: a test or a second window can hold its
own. The functions below are the short way to the running application's theme.

``apply_theme(app, "system")`` follows the OS colour scheme, also when it changes
while the app runs; ``"light"`` / ``"dark"`` force one; ``"high_contrast"`` is white on
black with yellow for links, focus and selection. ``set_zoom`` / ``zoom_by`` scale the
whole interface (Ctrl+= / Ctrl+- / Ctrl+0): the application font (every widget that
does not set its own inherits it), the stylesheet's paddings and radii, and the icons
(``ui_scale``). ``set_base_font_size`` is the Preferences' base size the zoom multiplies
(None: the platform's default).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from desktop.ui import stylesheet as sheet
from desktop.ui.app_owned import owned_by_app

if TYPE_CHECKING:
    from PySide6.QtCore import Qt

ZOOM_MIN, ZOOM_MAX = -4, 10

LIGHT = {
    "window": "#f6f7f9", "base": "#ffffff", "text": "#1f2328", "muted": "#6b7280",
    "border": "#e3e6ea", "accent": "#2563eb", "accent_text": "#ffffff",
    "user_bg": "#eef3ff", "assistant_bg": "#ffffff", "sidebar": "#f0f2f5",
    "error": "#b42318", "ok": "#067647", "warn": "#b54708", "hover": "#e8ecf2",
    "code_bg": "#f6f7f9",
    "focus_ring": "#0b1220",  # (around an accent button: 3:1 against it and the page)
}
DARK = {
    "window": "#1b1d21", "base": "#23262b", "text": "#e6e8eb", "muted": "#9aa0a6",
    "border": "#33373d", "accent": "#5b8def", "accent_text": "#ffffff",
    "user_bg": "#263043", "assistant_bg": "#23262b", "sidebar": "#1f2125",
    "error": "#f97066", "ok": "#47cd89", "warn": "#fdb022", "hover": "#2c3036",
    "code_bg": "#1c1e22",
    "focus_ring": "#ffffff",
}
# High contrast: white text on black, yellow for what acts (links, focus, selection),
# every border white; each pair reads at 15:1 or more (WCAG AAA asks 7:1).
HIGH_CONTRAST = {
    "window": "#000000", "base": "#000000", "text": "#ffffff", "muted": "#e6e6e6",
    "border": "#ffffff", "accent": "#ffff00", "accent_text": "#000000",
    "user_bg": "#000000", "assistant_bg": "#000000", "sidebar": "#000000",
    "error": "#ff8080", "ok": "#7dff7d", "warn": "#ffd000", "hover": "#333333",
    "code_bg": "#0d0d0d", "disabled_bg": "#000000",  # (a white "border" fill would hide text)
    "focus_ring": "#ffffff",
}
MODES = ("system", "light", "dark", "high_contrast")

_PALETTE_ROLES = (
    ("Window", "window"), ("Base", "base"), ("AlternateBase", "sidebar"), ("Text", "text"),
    ("WindowText", "text"), ("Button", "base"), ("ButtonText", "text"),
    ("Highlight", "accent"), ("HighlightedText", "accent_text"), ("ToolTipBase", "base"),
    ("ToolTipText", "text"), ("PlaceholderText", "muted"), ("Link", "accent"),
)


class Theme(QObject):
    """Light or dark, the zoom and the base font size of one application. Emits
    ``changed`` after any of them changed."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.dark = False
        self.mode = "system"
        self.high_contrast = False
        self.zoom = 0  # steps of 10 %
        self.base_pt: float | None = None  # the Preferences' size; None: the platform's
        self._platform_pt: float | None = None  # the app font before we first changed it
        self._styled = False  # apply() ran: zooming restyles the app too
        self._following_os = False

    def colors(self) -> dict[str, str]:
        if self.high_contrast:
            return HIGH_CONTRAST
        return DARK if self.dark else LIGHT

    # -- sizes ---------------------------------------------------------------------------

    def set_zoom(self, steps: int) -> None:
        steps = max(ZOOM_MIN, min(ZOOM_MAX, steps))
        if steps != self.zoom:
            self.zoom = steps
            self._rescale()

    def set_base_font_size(self, points: float | None) -> None:
        """The unzoomed application font size in points (None: the platform's)."""
        points = None if not points or points <= 0 else float(points)
        if points != self.base_pt:
            self.base_pt = points
            self._rescale()

    def platform_font_size(self) -> float:
        """The platform's application font size, remembered before we change it."""
        if self._platform_pt is None:
            size = QGuiApplication.font().pointSizeF()
            self._platform_pt = size if size > 0 else 10.0
        return self._platform_pt

    def font_size(self) -> float:
        """The application font size now: the base size, zoomed."""
        return round((self.base_pt or self.platform_font_size()) * (1 + 0.1 * self.zoom), 1)

    def ui_scale(self) -> float:
        """How much larger than at the platform's default the interface is drawn:
        paddings, radii and icons multiply by this."""
        return self.font_size() / self.platform_font_size()

    def scaled(self, px: float) -> int:
        return max(1, round(px * self.ui_scale())) if px > 0 else 0

    def stylesheet(self, c: dict[str, str] | None = None) -> str:
        return sheet.stylesheet(c or self.colors(), self.scaled)

    def _rescale(self) -> None:
        """Zoom or base size changed: a new application font, the stylesheet's sizes."""
        app = QApplication.instance()
        if isinstance(app, QApplication) and getattr(app, _APP_ATTRIBUTE, None) is self:
            font = QFont(app.font())
            old_size = font.pointSizeF()
            font.setPointSizeF(self.font_size())
            app.setFont(font)
            if self._styled:
                app.setStyleSheet(self.stylesheet())
            # (after the stylesheet: repolishing puts back the fonts widgets had before)
            _scale_own_fonts(app, self.font_size() / old_size if old_size > 0 else 1.0)
        self.changed.emit()

    # -- colours -------------------------------------------------------------------------

    def apply(self, app: QApplication, mode: str = "system", *, quick: bool = False) -> None:
        """Style ``app`` light, dark or like the OS (``"system"``), and tell the widgets.

        ``quick`` (at start-up, before the window shows): for ``"system"``, guess the OS
        scheme from the platform's palette instead of asking Qt for it; :meth:`settle`
        corrects the guess once the window is up."""
        self.platform_font_size()  # (remembered before the zoom changes the app font)
        self.mode = mode if mode in MODES else "system"
        self.high_contrast = self.mode == "high_contrast"
        if self.mode != "system":
            self.dark = self.mode in ("dark", "high_contrast")
        elif quick and not self._following_os:
            self.dark = _platform_palette_is_dark()
        else:
            self.dark = system_prefers_dark()
        if not self._following_os:
            QGuiApplication.styleHints().colorSchemeChanged.connect(self._os_scheme_changed)
            self._following_os = True
        c = self.colors()
        style = native_style_name()
        if app.property(STYLE_PROPERTY) != style:  # (once: gui.py names it to Qt at start)
            app.setStyle(style)
            app.setProperty(STYLE_PROPERTY, style)
        palette = QPalette()
        for role, key in _PALETTE_ROLES:
            palette.setColor(getattr(QPalette.ColorRole, role), QColor(c[key]))
        app.setPalette(palette)
        self._styled = True
        if self.font_size() != app.font().pointSizeF():
            font = QFont(app.font())
            font.setPointSizeF(self.font_size())
            app.setFont(font)
        app.setStyleSheet(self.stylesheet(c))
        self.changed.emit()

    def settle(self, app: QApplication, mode: str) -> None:
        """After start-up: apply ``mode`` (the saved setting) unless the quick start-up
        theme already matches it and the OS."""
        mode = mode if mode in MODES else "system"
        if mode != self.mode or (mode == "system" and system_prefers_dark() != self.dark):
            self.apply(app, mode)

    def _os_scheme_changed(self, _scheme: Qt.ColorScheme) -> None:
        app = QApplication.instance()
        if self.mode == "system" and isinstance(app, QApplication):
            self.apply(app, "system")


_APP_ATTRIBUTE = "_assista_theme"


def current() -> Theme:
    """The running application's theme (made on first use, owned by the app)."""
    return owned_by_app(_APP_ATTRIBUTE, Theme, Theme)


def notifier() -> Theme:
    """What to connect to for ``changed`` (the theme itself)."""
    return current()


def is_dark() -> bool:
    return current().dark


def colors() -> dict[str, str]:
    return current().colors()


def mode() -> str:
    return current().mode


def zoom() -> int:
    return current().zoom


def set_zoom(steps: int) -> None:
    current().set_zoom(steps)


def zoom_by(delta: int) -> None:
    current().set_zoom(current().zoom + delta)


def base_font_size() -> float | None:
    return current().base_pt


def set_base_font_size(points: float | None) -> None:
    current().set_base_font_size(points)


def platform_font_size() -> float:
    return current().platform_font_size()


def font_size() -> float:
    return current().font_size()


def ui_scale() -> float:
    return current().ui_scale()


def scaled(px: float) -> int:
    return current().scaled(px)


def stylesheet(c: dict[str, str]) -> str:
    """The app's stylesheet in colours ``c``, its sizes at the current zoom."""
    return current().stylesheet(c)


def apply_theme(app: QApplication, mode: str = "system", *, quick: bool = False) -> None:
    current().apply(app, mode, quick=quick)


def settle(app: QApplication, mode: str) -> None:
    current().settle(app, mode)


def chat_font(base: QFont | None = None) -> QFont:
    """The font of message text: a little larger than the (zoomed) application font."""
    font = QFont(base if base is not None else QGuiApplication.font())
    font.setPointSizeF(round(font_size() + 1.5 * ui_scale(), 1))
    return font


def system_prefers_dark() -> bool:
    from PySide6.QtCore import Qt  # creating its enums takes ~13 ms: not before the window

    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def _platform_palette_is_dark() -> bool:
    """A quick guess at the OS scheme: the platform's own palette (before ours is set)."""
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def _scale_own_fonts(app: QApplication, ratio: float) -> None:
    """Widgets that set a font of their own (a larger title, a monospace view) do not
    inherit the application font: scale theirs by the same ratio, so the zoom reaches
    every widget (one that recomputes its font on ``changed`` overrides this anyway)."""
    from PySide6.QtCore import Qt

    if abs(ratio - 1.0) < 1e-6:
        return
    for widget in app.allWidgets():
        if widget.testAttribute(Qt.WidgetAttribute.WA_SetFont):
            own = widget.font()
            if own.pointSizeF() > 0:
                own.setPointSizeF(max(1.0, own.pointSizeF() * ratio))
                widget.setFont(own)


#: The application's property naming the widget style it was given (by its constructor
#: at start-up, or by :meth:`Theme.apply`).
STYLE_PROPERTY = "assistaStyle"


def native_style_name() -> str:
    """The platform's own widget style on macOS and Windows (people expect their native
    controls there); Fusion elsewhere, where the native look varies by desktop and
    several styles draw our dark palette badly."""
    import sys

    if sys.platform == "darwin":
        return "macOS"
    if sys.platform == "win32":
        keys = _style_keys()
        return next((key for key in ("windows11", "windowsvista") if key in keys), "Windows")
    return "Fusion"


def _style_keys() -> list[str]:
    from PySide6.QtWidgets import QStyleFactory

    return [key.lower() for key in QStyleFactory.keys()]  # noqa: SIM118 (a list)
