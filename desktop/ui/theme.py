"""Light and dark looks: a Fusion palette plus one stylesheet with named colours; the
chat's font zoom; a notifier widgets observe to restyle themselves.

``apply_theme(app, "system")`` follows the OS colour scheme, also when it changes
while the app runs; ``"light"`` / ``"dark"`` force one. ``set_zoom`` / ``zoom_by`` scale
the chat text (Ctrl+= / Ctrl+- in the chat view).
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
        notifier().changed.emit()


def zoom_by(delta: int) -> None:
    set_zoom(_ZOOM + delta)


def chat_font(base: QFont | None = None) -> QFont:
    """The font of message text: the application font, a little larger, zoomed."""
    font = QFont(base if base is not None else QGuiApplication.font())
    size = font.pointSizeF() if font.pointSizeF() > 0 else 10.0
    font.setPointSizeF(round((size + 1.5) * (1 + 0.1 * _ZOOM), 1))
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
    global _DARK, _MODE, _following_os
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
    app.setStyle("Fusion")
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
    app.setStyleSheet(stylesheet(c))
    notifier().changed.emit()


def settle(app: QApplication, mode: str) -> None:
    """After start-up: apply ``mode`` (the saved setting) unless the quick start-up
    theme already matches it and the OS."""
    mode = mode if mode in ("light", "dark") else "system"
    if mode != _MODE or (mode == "system" and system_prefers_dark() != _DARK):
        apply_theme(app, mode)


def stylesheet(c: dict[str, str]) -> str:
    return f"""
QMainWindow, QDialog {{ background: {c['window']}; }}
#sessionPanel, #toolSidebar {{ background: {c['sidebar']}; }}
#sessionPanel {{ border-right: 1px solid {c['border']}; }}
#toolSidebar {{ border-left: 1px solid {c['border']}; }}
#toolSidebar QScrollArea, #toolSidebarInner {{ background: transparent; }}
#panelTitle {{ font-weight: 600; color: {c['muted']}; padding: 4px 2px; }}
#topBar {{ background: {c['base']}; border-bottom: 1px solid {c['border']}; }}
#appTitle {{ font-weight: 700; font-size: 15px; }}
#usageLabel, #messageHeader, #toolLine, #emptyHint {{ color: {c['muted']}; }}
#chatContainer {{ background: {c['window']}; }}
QAbstractScrollArea#chatView {{ background: {c['window']}; border: none; }}
#userMessage {{ background: {c['user_bg']}; border: 1px solid {c['border']};
    border-radius: 10px; }}
#assistantMessage {{ background: {c['assistant_bg']}; border: 1px solid {c['border']};
    border-radius: 10px; }}
#assistantContinuation {{ background: transparent; border: none; }}
#reasoningToggle {{ border: none; color: {c['muted']}; padding: 0; text-align: left; }}
#reasoningToggle:focus, #messageAction:focus {{ color: {c['accent']}; }}
#tokenCount {{ color: {c['muted']}; }}
#messageAction {{ border: 1px solid transparent; border-radius: 5px; color: {c['muted']};
    padding: 1px 6px; background: transparent; }}
#messageAction:hover {{ border-color: {c['border']}; background: {c['hover']}; }}
#messageAction[popupMode="1"] {{ padding-right: 16px; }}
#messageAction::menu-button {{ border: none; border-left: 1px solid transparent;
    background: transparent; width: 14px; }}
#messageAction::menu-button:hover {{ border-left-color: {c['border']}; }}
#jumpButton {{ background: {c['accent']}; color: {c['accent_text']}; border: none;
    border-radius: 14px; padding: 6px 16px; font-weight: 600; }}
#jumpButton:hover {{ background: {c['text']}; color: {c['base']}; }}
#reasoningView {{ color: {c['muted']}; }}
#messageStatus[kind="error"] {{ color: {c['error']}; }}
#messageStatus[kind="stopped"], #messageStatus[kind="interrupted"] {{ color: {c['warn']}; }}
#composerBox {{ background: {c['base']}; border: 1px solid {c['border']};
    border-radius: 10px; }}
#composerInput {{ border: none; background: transparent; }}
QPushButton {{ padding: 5px 12px; border-radius: 6px; border: 1px solid {c['border']};
    background: {c['base']}; }}
QPushButton:hover {{ background: {c['hover']}; }}
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
QListWidget::item {{ padding: 6px 8px; border-radius: 6px; }}
QListWidget::item:selected {{ background: {c['hover']}; color: {c['text']}; }}
#toolCard {{ background: {c['base']}; border: 1px solid {c['border']}; border-radius: 8px; }}
#toolCardName {{ font-weight: 600; }}
#toolCardMeta, #turnHeader {{ color: {c['muted']}; }}
#toolCardStatus[status="succeeded"] {{ color: {c['ok']}; }}
#toolCardStatus[status="failed"], #toolCardStatus[status="denied"] {{ color: {c['error']}; }}
#toolCardStatus[status="running"], #toolCardStatus[status="cancelled"] {{ color: {c['warn']}; }}
#errorBanner {{ background: {c['error']}; color: {c['accent_text']}; padding: 6px 10px;
    border-radius: 6px; }}
QStatusBar {{ color: {c['muted']}; }}
QScrollBar:vertical {{ background: transparent; width: 10px; margin: 0; border: none; }}
QScrollBar:horizontal {{ background: transparent; height: 10px; margin: 0; border: none; }}
QScrollBar::handle:vertical {{ background: {c['border']}; border-radius: 4px;
    min-height: 28px; margin: 1px 2px; }}
QScrollBar::handle:horizontal {{ background: {c['border']}; border-radius: 4px;
    min-width: 28px; margin: 2px 1px; }}
QScrollBar::handle:hover {{ background: {c['muted']}; }}
QScrollBar::add-line, QScrollBar::sub-line {{ width: 0; height: 0; border: none; }}
QScrollBar::add-page, QScrollBar::sub-page {{ background: transparent; }}
"""
