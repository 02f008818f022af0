"""What the window needs before anything else is loaded: the theme, its size and
place, the splitter and the chat's zoom.

:func:`read_window_state` reads them straight from the database file with
``sqlite3`` (read-only, no models, no migrations), so the window can be shown in the
first tens of milliseconds; anything missing or unreadable gives the defaults (the
real open that follows reports a damaged file). The window writes its state back
through :meth:`SettingsStore.set_value` under :data:`WINDOW_STATE_KEY`.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

from desktop.core.first_frame import TOOLS_PANEL_KEY, WINDOW_STATE_KEY, WindowState

__all__ = ["TOOLS_PANEL_KEY", "WINDOW_STATE_KEY", "WindowState", "parse_window_state",
           "read_window_state"]

_APP_SETTINGS_KEY = "app"  # desktop.storage.settings_store.APP_SETTINGS_KEY
THEMES = ("system", "light", "dark", "high_contrast")


def read_window_state(db_path: Path) -> WindowState:
    if not db_path.is_file():
        return WindowState()
    try:
        con = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.5)
        try:
            rows = dict(con.execute(
                "SELECT key, value FROM settings WHERE key IN (?, ?)",
                (_APP_SETTINGS_KEY, WINDOW_STATE_KEY)).fetchall())
        finally:
            con.close()
    except sqlite3.Error as exc:
        logging.getLogger(__name__).info(
            "window state not read before start (%s); using defaults", exc)
        return WindowState()
    return parse_window_state(rows.get(_APP_SETTINGS_KEY), rows.get(WINDOW_STATE_KEY))


def parse_window_state(app_settings: object, window: object) -> WindowState:
    """Lenient: every field that is missing or of the wrong type keeps its default."""
    app, state = _json_object(app_settings), _json_object(window)
    theme = app.get("theme")
    geometry = state.get("geometry")
    splitter = state.get("splitter")
    # (not the former "sidebar_visible": saved on every close, it was no choice the user
    # made, and it kept the panel open by default)
    sidebar = state.get(TOOLS_PANEL_KEY)
    zoom = state.get("zoom")
    parsed = WindowState(
        theme=theme if theme in THEMES else "system",
        geometry=geometry if isinstance(geometry, str) and geometry else None,
        splitter=([int(n) for n in splitter] if isinstance(splitter, list) and len(splitter) == 3
                  and all(isinstance(n, int) and 0 <= n <= 100_000 for n in splitter) else []),
        sidebar_visible=sidebar if isinstance(sidebar, bool) else None,
        zoom=zoom if isinstance(zoom, int) and not isinstance(zoom, bool) and -20 < zoom < 20
        else 0,
    )
    language = app.get("language")
    if isinstance(language, str) and len(language) <= 16:
        parsed.language = language
    return parsed


def _json_object(raw: object) -> dict[str, Any]:
    if not isinstance(raw, str):
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
