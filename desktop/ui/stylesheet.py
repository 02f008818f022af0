"""The app's one stylesheet, in a palette's named colours, its sizes scaled by the
zoom (``px``: points at the default size to pixels now)."""

from __future__ import annotations

from collections.abc import Callable


def stylesheet(c: dict[str, str], px: Callable[[float], int]) -> str:
    # Buttons are styled here, so the style's own focus rectangle is gone: the focus
    # rules at the end draw a clear accent ring instead, in both themes (a button filled
    # with the accent gets a ring of its own colour: an accent ring would not show).
    return f"""
QMainWindow, QDialog {{ background: {c['window']}; }}
#sessionPanel, #toolSidebar {{ background: {c['sidebar']}; }}
#sessionPanel {{ border-right: 1px solid {c['border']}; }}
#toolSidebar {{ border-left: 1px solid {c['border']}; }}
#chatListDrawer, #toolsDrawer {{ background: {c['sidebar']}; }}
#searchCard {{ background: {c['window']}; border: 1px solid {c['border']};
    border-radius: {px(10)}px; }}
#chatListToggle {{ background: {c['base']}; border: 1px solid {c['border']}; }}
#toolSidebar QScrollArea, #toolSidebarInner {{ background: transparent; }}
#panelTitle {{ font-weight: 600; color: {c['muted']}; padding: {px(4)}px {px(2)}px; }}
#topBar {{ background: {c['base']}; border-bottom: 1px solid {c['border']}; }}
#appTitle {{ font-weight: 700; font-size: {px(15)}px; }}
#usageLabel, #messageHeader, #toolLine, #emptyHint {{ color: {c['muted']}; }}
QTextBrowser#toolDetails {{ background: {c['code_bg']}; border: 1px solid {c['border']};
    border-radius: {px(6)}px; }}
#chatContainer {{ background: {c['window']}; }}
QAbstractScrollArea#chatView {{ background: {c['window']}; border: none; }}
#userMessage {{ background: {c['user_bg']}; border: 1px solid {c['border']};
    border-radius: {px(10)}px; }}
#assistantMessage {{ background: {c['assistant_bg']}; border: 1px solid {c['border']};
    border-radius: {px(10)}px; }}
#sentAttachment {{ background: {c['base']}; border: 1px solid {c['border']};
    border-radius: {px(8)}px; }}
#sentAttachment:hover, #sentAttachment:focus {{ border-color: {c['accent']}; }}
#attachmentName {{ font-weight: 600; }}
#attachmentDetails {{ color: {c['muted']}; }}
#attachmentProblem {{ color: {c['error']}; }}
#imagePlaceholder {{ color: {c['muted']}; background: {c['base']};
    border: 1px dashed {c['border']}; border-radius: {px(8)}px; padding: {px(14)}px; }}
#assistantContinuation {{ background: transparent; border: none; }}
#reasoningToggle {{ border: none; color: {c['muted']}; padding: 0; text-align: left; }}
#reasoningToggle:focus, #messageAction:focus {{ color: {c['accent']}; }}
#tokenCount {{ color: {c['muted']}; }}
#messageAction {{ border: 1px solid transparent; border-radius: {px(5)}px;
    color: {c['muted']}; padding: {px(1)}px {px(6)}px; background: transparent; }}
#messageAction:hover {{ border-color: {c['border']}; background: {c['hover']}; }}
#messageAction[popupMode="1"] {{ padding-right: {px(16)}px; }}
#messageAction[popupMode="2"]::menu-indicator {{ image: none; width: 0; }}
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
#quickAnswer {{ background: {c['base']}; }}
#quickInput, QScrollArea#quickScroll {{ border: 1px solid {c['border']};
    border-radius: {px(6)}px; background: {c['base']}; }}
QPushButton {{ padding: {px(5)}px {px(12)}px; border-radius: {px(6)}px;
    border: 1px solid {c['border']}; background: {c['base']}; }}
QPushButton:hover {{ background: {c['hover']}; }}
QPushButton:disabled, QToolButton:disabled {{ color: {c['muted']}; background: {c['window']};
    border-color: {c['window']}; }}
QLineEdit:disabled, QPlainTextEdit:disabled, QTextEdit:disabled, QComboBox:disabled,
QAbstractSpinBox:disabled, QCheckBox:disabled, QRadioButton:disabled, QLabel:disabled {{
    color: {c['muted']}; }}
QPushButton#linkButton {{ border: none; background: transparent; color: {c['accent']};
  padding: 0; text-align: left; }}
QPushButton#linkButton:hover {{ text-decoration: underline; }}
QPushButton#primaryButton {{ background: {c['accent']}; color: {c['accent_text']};
    border: 1px solid {c['accent']}; }}
QPushButton#primaryButton:disabled {{ background: {c.get('disabled_bg', c['border'])};
    border-color: {c['border']};
    color: {c['muted']}; }}
QPushButton#stopButton {{ background: {c['error']}; color: {c['accent_text']};
    border: 1px solid {c['error']}; }}
QListWidget {{ border: none; background: transparent; }}
QListWidget::item {{ padding: {px(6)}px {px(8)}px; border-radius: {px(6)}px; }}
QListWidget::item:selected {{ background: {c['hover']}; color: {c['text']}; }}
QListWidget#sectionList {{ background: {c['sidebar']}; border: 1px solid {c['border']};
    border-radius: {px(6)}px; padding: {px(4)}px; }}
QListWidget#sectionList::item {{ margin: {px(1)}px 0; }}
QListWidget#sectionList::item:selected {{ color: {c['accent']}; }}
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
QPushButton:focus, QToolButton#iconButton:focus, QToolButton#messageAction:focus {{
    border: {px(2)}px solid {c['accent']}; }}
QPushButton#primaryButton:focus, QPushButton#stopButton:focus {{
    border: {px(2)}px solid {c['focus_ring']}; }}
QListWidget:focus, QTreeWidget:focus, QTableWidget:focus {{
    border: 1px solid {c['accent']}; border-radius: {px(6)}px; }}
"""
