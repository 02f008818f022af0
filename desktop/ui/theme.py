"""Light and dark looks: a palette plus one stylesheet with named colours; the whole
window's zoom; a notifier widgets observe to restyle themselves.

``apply_theme(app, "system")`` follows the OS colour scheme, also when it changes
while the app runs; ``"light"`` / ``"dark"`` force one. ``set_zoom`` / ``zoom_by`` scale
the whole interface (Ctrl+= / Ctrl+- / Ctrl+0): the application font (every widget that
does not set its own inherits it), the stylesheet's paddings and radii, and the icons
(``ui_scale``). ``set_base_font_size`` is the Preferences' base size the zoom multiplies
(None: the platform's default).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from PySide6.QtCore import Qt

_DARK = False
_MODE = "system"
_ZOOM = 0  # steps of 10 %
ZOOM_MIN, ZOOM_MAX = -4, 10
_BASE_PT: float | None = None  # the Preferences' base font size; None: the platform's
_PLATFORM_PT: float | None = None  # the app font before we first changed it
_STYLED = False  # apply_theme ran: zooming restyles the app too


class ThemeNotifier(QObject):
    """Emits ``changed`` after the theme or the zoom changed."""

    changed = Signal()


_notifier: ThemeNotifier | None = None
_following_os = False


def notifier() -> ThemeNotifier:
    global _notifier
    if _notifier is None:
        _notifier = ThemeNotifier()
    return _notifier

LIGHT = {
    "window": "#f6f7f9", "base": "#ffffff", "text": "#1f2328", "muted": "#6b7280",
    "border": "#e3e6ea", "accent": "#2563eb", "accent_text": "#ffffff",
    "user_bg": "#eef3ff", "assistant_bg": "#ffffff", "sidebar": "#f0f2f5",
    "error": "#b42318", "ok": "#067647", "warn": "#b54708", "hover": "#e8ecf2",
    "code_bg": "#f6f7f9",
}
DARK = {
    "window": "#1b1d21", "base": "#23262b", "text": "#e6e8eb", "muted": "#9aa0a6",
    "border": "#33373d", "accent": "#5b8def", "accent_text": "#ffffff",
    "user_bg": "#263043", "assistant_bg": "#23262b", "sidebar": "#1f2125",
    "error": "#f97066", "ok": "#47cd89", "warn": "#fdb022", "hover": "#2c3036",
    "code_bg": "#1c1e22",
}


def is_dark() -> bool:
    return _DARK


def colors() -> dict[str, str]:
    return DARK if _DARK else LIGHT


def system_prefers_dark() -> bool:
    from PySide6.QtCore import Qt  # creating its enums takes ~13 ms: not before the window

    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def _platform_palette_is_dark() -> bool:
    """A quick guess at the OS scheme: the platform's own palette (before ours is set)."""
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def mode() -> str:
    return _MODE


def zoom() -> int:
    return _ZOOM


def set_zoom(steps: int) -> None:
    global _ZOOM
    steps = max(ZOOM_MIN, min(ZOOM_MAX, steps))
    if steps != _ZOOM:
        _ZOOM = steps
        _rescale()


def zoom_by(delta: int) -> None:
    set_zoom(_ZOOM + delta)


def base_font_size() -> float | None:
    return _BASE_PT


def set_base_font_size(points: float | None) -> None:
    """The unzoomed application font size in points (None: the platform's)."""
    global _BASE_PT
    points = None if not points or points <= 0 else float(points)
    if points != _BASE_PT:
        _BASE_PT = points
        _rescale()


def platform_font_size() -> float:
    """The platform's application font size, remembered before we change it."""
    global _PLATFORM_PT
    if _PLATFORM_PT is None:
        size = QGuiApplication.font().pointSizeF()
        _PLATFORM_PT = size if size > 0 else 10.0
    return _PLATFORM_PT


def font_size() -> float:
    """The application font size now: the base size, zoomed."""
    return round((_BASE_PT or platform_font_size()) * (1 + 0.1 * _ZOOM), 1)


def ui_scale() -> float:
    """How much larger than at the platform's default the interface is drawn: paddings,
    radii and icons multiply by this."""
    return font_size() / platform_font_size()


def scaled(px: float) -> int:
    return max(1, round(px * ui_scale())) if px > 0 else 0


def _rescale() -> None:
    """Zoom or base size changed: a new application font, the stylesheet's sizes."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        font = QFont(app.font())
        old_size = font.pointSizeF()
        font.setPointSizeF(font_size())
        app.setFont(font)
        if _STYLED:
            app.setStyleSheet(stylesheet(colors()))
        # (after the stylesheet: repolishing puts back the fonts widgets had before)
        _scale_own_fonts(app, font_size() / old_size if old_size > 0 else 1.0)
    notifier().changed.emit()


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


def chat_font(base: QFont | None = None) -> QFont:
    """The font of message text: a little larger than the (zoomed) application font."""
    font = QFont(base if base is not None else QGuiApplication.font())
    font.setPointSizeF(round(font_size() + 1.5 * ui_scale(), 1))
    return font


def _os_scheme_changed(_scheme: Qt.ColorScheme) -> None:
    app = QApplication.instance()
    if _MODE == "system" and isinstance(app, QApplication):
        apply_theme(app, "system")


def apply_theme(app: QApplication, mode: str = "system", *, quick: bool = False) -> None:
    """Style ``app`` light, dark or like the OS (``"system"``), and tell the widgets.

    ``quick`` (at start-up, before the window shows): for ``"system"``, guess the OS
    scheme from the platform's palette instead of asking Qt for it; :func:`settle`
    corrects the guess once the window is up."""
    global _DARK, _MODE, _following_os, _STYLED
    platform_font_size()  # (remembered before the zoom changes the app font)
    _MODE = mode if mode in ("light", "dark") else "system"
    if _MODE != "system":
        _DARK = _MODE == "dark"
    elif quick and not _following_os:
        _DARK = _platform_palette_is_dark()
    else:
        _DARK = system_prefers_dark()
    if not _following_os:
        QGuiApplication.styleHints().colorSchemeChanged.connect(_os_scheme_changed)
        _following_os = True
    c = colors()
    app.setStyle(native_style_name())
    palette = QPalette()
    for role, key in [
        (QPalette.ColorRole.Window, "window"), (QPalette.ColorRole.Base, "base"),
        (QPalette.ColorRole.AlternateBase, "sidebar"), (QPalette.ColorRole.Text, "text"),
        (QPalette.ColorRole.WindowText, "text"), (QPalette.ColorRole.Button, "base"),
        (QPalette.ColorRole.ButtonText, "text"), (QPalette.ColorRole.Highlight, "accent"),
        (QPalette.ColorRole.HighlightedText, "accent_text"),
        (QPalette.ColorRole.ToolTipBase, "base"), (QPalette.ColorRole.ToolTipText, "text"),
        (QPalette.ColorRole.PlaceholderText, "muted"), (QPalette.ColorRole.Link, "accent"),
    ]:
        palette.setColor(role, QColor(c[key]))
    app.setPalette(palette)
    _STYLED = True
    if font_size() != app.font().pointSizeF():
        font = QFont(app.font())
        font.setPointSizeF(font_size())
        app.setFont(font)
    app.setStyleSheet(stylesheet(c))
    notifier().changed.emit()


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


def settle(app: QApplication, mode: str) -> None:
    """After start-up: apply ``mode`` (the saved setting) unless the quick start-up
    theme already matches it and the OS."""
    mode = mode if mode in ("light", "dark") else "system"
    if mode != _MODE or (mode == "system" and system_prefers_dark() != _DARK):
        apply_theme(app, mode)


def stylesheet(c: dict[str, str]) -> str:
    """The app's stylesheet in colours ``c``, its sizes at the current zoom."""
    px = scaled
    return f"""
QMainWindow, QDialog {{ background: {c['window']}; }}
#sessionPanel, #toolSidebar {{ background: {c['sidebar']}; }}
#sessionPanel {{ border-right: 1px solid {c['border']}; }}
#toolSidebar {{ border-left: 1px solid {c['border']}; }}
#chatListDrawer, #toolsDrawer {{ background: {c['sidebar']}; }}
#chatListToggle {{ background: {c['base']}; border: 1px solid {c['border']}; }}
#toolSidebar QScrollArea, #toolSidebarInner {{ background: transparent; }}
#panelTitle {{ font-weight: 600; color: {c['muted']}; padding: {px(4)}px {px(2)}px; }}
#topBar {{ background: {c['base']}; border-bottom: 1px solid {c['border']}; }}
#appTitle {{ font-weight: 700; font-size: {px(15)}px; }}
#usageLabel, #messageHeader, #toolLine, #emptyHint {{ color: {c['muted']}; }}
#chatContainer {{ background: {c['window']}; }}
QAbstractScrollArea#chatView {{ background: {c['window']}; border: none; }}
#userMessage {{ background: {c['user_bg']}; border: 1px solid {c['border']};
    border-radius: {px(10)}px; }}
#assistantMessage {{ background: {c['assistant_bg']}; border: 1px solid {c['border']};
    border-radius: {px(10)}px; }}
#assistantContinuation {{ background: transparent; border: none; }}
#reasoningToggle {{ border: none; color: {c['muted']}; padding: 0; text-align: left; }}
#reasoningToggle:focus, #messageAction:focus {{ color: {c['accent']}; }}
#tokenCount {{ color: {c['muted']}; }}
#messageAction {{ border: 1px solid transparent; border-radius: {px(5)}px;
    color: {c['muted']}; padding: {px(1)}px {px(6)}px; background: transparent; }}
#messageAction:hover {{ border-color: {c['border']}; background: {c['hover']}; }}
#messageAction[popupMode="1"] {{ padding-right: {px(16)}px; }}
#messageAction::menu-button {{ border: none; border-left: 1px solid transparent;
    background: transparent; width: {px(14)}px; }}
#messageAction::menu-button:hover {{ border-left-color: {c['border']}; }}
#jumpButton {{ background: {c['accent']}; color: {c['accent_text']}; border: none;
    border-radius: {px(14)}px; padding: {px(6)}px {px(16)}px; font-weight: 600; }}
#jumpButton:hover {{ background: {c['text']}; color: {c['base']}; }}
#reasoningView {{ color: {c['muted']}; }}
#messageStatus[kind="error"] {{ color: {c['error']}; }}
#messageStatus[kind="stopped"], #messageStatus[kind="interrupted"] {{ color: {c['warn']}; }}
#composerBox {{ background: {c['base']}; border: 1px solid {c['border']};
    border-radius: {px(10)}px; }}
#composerInput {{ border: none; background: transparent; }}
QPushButton {{ padding: {px(5)}px {px(12)}px; border-radius: {px(6)}px;
    border: 1px solid {c['border']}; background: {c['base']}; }}
QPushButton:hover {{ background: {c['hover']}; }}
QPushButton:disabled, QToolButton:disabled {{ color: {c['muted']}; background: {c['window']};
    border-color: {c['window']}; }}
QPushButton#linkButton {{ border: none; background: transparent; color: {c['accent']};
  padding: 0; text-align: left; }}
QPushButton#linkButton:hover {{ text-decoration: underline; }}
QPushButton#primaryButton {{ background: {c['accent']}; color: {c['accent_text']};
    border: 1px solid {c['accent']}; }}
QPushButton#primaryButton:disabled {{ background: {c['border']}; border-color: {c['border']};
    color: {c['muted']}; }}
QPushButton#stopButton {{ background: {c['error']}; color: {c['accent_text']};
    border: 1px solid {c['error']}; }}
QListWidget {{ border: none; background: transparent; }}
QListWidget::item {{ padding: {px(6)}px {px(8)}px; border-radius: {px(6)}px; }}
QListWidget::item:selected {{ background: {c['hover']}; color: {c['text']}; }}
#toolCard {{ background: {c['base']}; border: 1px solid {c['border']};
    border-radius: {px(8)}px; }}
#toolCardName {{ font-weight: 600; }}
#toolCardMeta, #turnHeader {{ color: {c['muted']}; }}
#toolCardStatus[status="succeeded"] {{ color: {c['ok']}; }}
#toolCardStatus[status="failed"], #toolCardStatus[status="denied"] {{ color: {c['error']}; }}
#toolCardStatus[status="running"], #toolCardStatus[status="cancelled"] {{ color: {c['warn']}; }}
#errorBanner {{ background: {c['error']}; color: {c['accent_text']};
    padding: {px(6)}px {px(10)}px; border-radius: {px(6)}px; }}
QStatusBar {{ color: {c['muted']}; }}
QScrollBar:vertical {{ background: transparent; width: {px(10)}px; margin: 0; border: none; }}
QScrollBar:horizontal {{ background: transparent; height: {px(10)}px; margin: 0; border: none; }}
QScrollBar::handle:vertical {{ background: {c['border']}; border-radius: {px(4)}px;
    min-height: {px(28)}px; margin: {px(1)}px {px(2)}px; }}
QScrollBar::handle:horizontal {{ background: {c['border']}; border-radius: {px(4)}px;
    min-width: {px(28)}px; margin: {px(2)}px {px(1)}px; }}
QScrollBar::handle:hover {{ background: {c['muted']}; }}
QScrollBar::add-line, QScrollBar::sub-line {{ width: 0; height: 0; border: none; }}
QScrollBar::add-page, QScrollBar::sub-page {{ background: transparent; }}
QToolButton#iconButton {{ border: {px(2)}px solid transparent; border-radius: {px(6)}px;
    padding: {px(3)}px; background: transparent; qproperty-iconSize: {px(18)}px {px(18)}px; }}
QToolButton#iconButton:hover {{ background: {c['hover']}; }}
QToolButton#iconButton:checked {{ background: {c['hover']}; }}
QPushButton, QToolButton {{ qproperty-iconSize: {px(16)}px {px(16)}px; }}
"""
