"""What the window shows in its first frame, as plain values: its state (theme, size,
layout, zoom) and the first chats of the list. Read straight from the database file
before the app has loaded (:mod:`desktop.storage.window_state`,
:mod:`desktop.storage.first_chats`); the window takes the types from here (issue 26:
the interface imports no storage module). Imported before Qt: nothing else to import.
"""

from __future__ import annotations

from typing import Any

WINDOW_STATE_KEY = "window"  # the settings value the window's state is kept under
TOOLS_PANEL_KEY = "tools_panel_chosen"  # the user's choice for Tool activity


class WindowState:
    """(A plain class, not a dataclass: this module is imported before the window
    shows, and ``dataclasses`` costs a few milliseconds to import.)"""

    __slots__ = ("geometry", "language", "sidebar_visible", "splitter", "theme", "zoom")

    def __init__(self, theme: str = "system", geometry: str | None = None,
                 splitter: list[int] | None = None, sidebar_visible: bool | None = None,
                 zoom: int = 0) -> None:
        self.theme = theme  #: "system", "light", "dark" or "high_contrast" (app settings)
        self.geometry = geometry  #: base64 of QWidget.saveGeometry()
        self.splitter = splitter or []  #: sessions | chat | tool activity widths
        #: Tool activity as the user last chose it: shown (True), hidden (False), or
        #: never chosen (None: it starts hidden and opens by itself when a tool runs)
        self.sidebar_visible = sidebar_visible
        self.zoom = zoom  #: chat text zoom, in steps of 10 %
        self.language = ""  #: the interface language ("" = the system's; app settings)

    def to_json(self) -> dict[str, Any]:
        """The value stored under :data:`WINDOW_STATE_KEY` (the theme lives in the app
        settings, not here)."""
        return {"geometry": self.geometry, "splitter": self.splitter,
                TOOLS_PANEL_KEY: self.sidebar_visible, "zoom": self.zoom}


class FirstChat:
    """(A plain class, not a dataclass: see :class:`WindowState`.)"""

    __slots__ = ("created_at", "id", "pinned", "title", "updated_at")

    def __init__(self, id: str, title: str, pinned: bool, created_at: float,
                 updated_at: float) -> None:
        self.id = id
        self.title = title
        self.pinned = pinned
        self.created_at = created_at
        self.updated_at = updated_at

    def __repr__(self) -> str:
        return f"FirstChat({self.id!r}, {self.title!r}, pinned={self.pinned})"
