"""The quick-ask window's global shortcut, on whatever this desktop offers.

X11: a key grab on the root window (shortcut_x11), read on a QSocketNotifier;
Wayland: the desktop portal's GlobalShortcuts (shortcut_portal), also on a socket
notifier; Windows: RegisterHotKey (shortcut_windows). macOS and anything else: not
available, and Preferences says to bind ``assista quick`` to a system shortcut.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QSocketNotifier, Signal
from PySide6.QtGui import QGuiApplication

from desktop.ui.quick.key_combo import KeyCombo, KeyComboError

log = logging.getLogger(__name__)

# What Preferences shows for ``status``: off, registered, pending, taken, cancelled,
# unavailable, invalid.
STATUSES = ("off", "registered", "pending", "taken", "cancelled", "unavailable", "invalid")


class GlobalShortcut(QObject):
    """Holds at most one system-wide key combination; ``activated`` when pressed.

    ``platform``: Qt's platform name ("xcb", "wayland", "windows", ...), the running
    one by default; ``display`` (X11) and ``bus`` (portal): where to connect.
    """

    activated = Signal()
    statusChanged = Signal(str)

    def __init__(self, parent: QObject | None = None, *, platform: str | None = None,
                 display: str | None = None, bus: str = "SESSION") -> None:
        super().__init__(parent)
        if platform is None:
            platform = QGuiApplication.platformName()
            if platform == "xcb" and os.environ.get("WAYLAND_DISPLAY"):
                # XWayland: an X grab sees keys only while an X window has the focus
                platform = "wayland"
        self.platform = platform
        self.display = display
        self.bus = bus
        self.combo: KeyCombo | None = None
        self.status = "off"
        self.detail = ""  # what the desktop said (portal: the bound trigger; errors)
        self._backend: Any = None
        self._notifier: QSocketNotifier | None = None
        self._filter: Any = None

    # -- what it is set to ----------------------------------------------------------------

    def set_shortcut(self, text: str) -> str:
        """Hold ``text`` ("Ctrl+Alt+Space"; empty: none) instead; returns the status."""
        if not text.strip():
            self.combo = None
            self._release()
            return self._set_status("off")
        try:
            combo = KeyCombo.parse(text)
        except KeyComboError as exc:
            self.combo = None
            self._release()
            return self._set_status("invalid", exc.reason)
        if combo == self.combo and self.status in ("registered", "pending"):
            return self.status
        self.combo = combo
        try:
            return self._register(combo)
        except Exception as exc:  # a desktop we cannot talk to never stops the app
            log.warning("global shortcut %s: %s", combo.text(), exc)
            self._release()
            return self._set_status("unavailable", str(exc))

    def _register(self, combo: KeyCombo) -> str:
        if self.platform == "xcb":
            from desktop.ui.quick.shortcut_x11 import XcbKeyGrab

            if self._backend is None:
                self._backend = XcbKeyGrab(self.display)
                self._watch(self._backend.fileno(), self._x11_readable)
            status = self._backend.grab(combo)
            self._x11_readable()  # replies may have brought events in with them
            return self._set_status(status)
        if self.platform == "wayland":
            from desktop.ui.quick.shortcut_portal import PortalShortcut

            if self._backend is None:
                self._backend = PortalShortcut(self._portal_status, self.activated.emit,
                                               self.bus)
                self._watch(self._backend.fileno(), self._portal_readable)
            self._backend.bind(self.tr("Open the Assista quick-ask window"),
                               combo.portal_trigger())
            return self._set_status("pending")
        if self.platform == "windows":
            from desktop.ui.quick.shortcut_windows import HotKeyFilter, WindowsHotKey

            if self._backend is None:
                self._backend = WindowsHotKey()
                self._filter = HotKeyFilter(self.activated.emit)
                app = QCoreApplication.instance()
                if app is not None:
                    app.installNativeEventFilter(self._filter)
            return self._set_status(self._backend.register(combo))
        return self._set_status("unavailable")

    def _watch(self, fd: int, slot: Any) -> None:
        self._notifier = QSocketNotifier(fd, QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(slot)  # (a bound method: no reference cycle)

    def _x11_readable(self, *_args: object) -> None:
        backend = self._backend
        if backend is None:
            return
        try:
            presses = backend.read_presses()
        except OSError as exc:  # the X server went away: stop watching its socket
            log.warning("global shortcut: %s", exc)
            self.close()
            self._set_status("unavailable", str(exc))
            return
        for _ in range(presses):
            self.activated.emit()
        if backend.keymap_changed and self.combo is not None:
            self._set_status(backend.regrab(self.combo))
            self._x11_readable()  # what came in with the replies

    def _portal_readable(self, *_args: object) -> None:
        if self._backend is not None and not self._backend.read() and \
                self._notifier is not None:
            self._notifier.setEnabled(False)

    def _portal_status(self, status: str, detail: str) -> None:
        if status != "registered":
            log.info("desktop portal global shortcut: %s (%s)", status, detail)
        self._set_status(status, detail)

    def _set_status(self, status: str, detail: str = "") -> str:
        self.status, self.detail = status, detail
        self.statusChanged.emit(status)
        return status

    # -- what Preferences shows -----------------------------------------------------------

    def message(self) -> str:
        shown = self.combo.text() if self.combo is not None else ""
        if self.status == "registered":
            if self.platform == "wayland" and self.detail:
                return self.tr("Registered with the desktop as {trigger}.").format(
                    trigger=self.detail)
            return self.tr("Registered: {shortcut} opens quick ask from any "
                           "application.").format(shortcut=shown)
        if self.status == "pending":
            return self.tr("Waiting for the desktop to confirm the shortcut…")
        if self.status == "taken":
            return self.tr("{shortcut} is taken by another program: choose another "
                           "combination.").format(shortcut=shown)
        if self.status == "cancelled":
            return self.tr("The desktop did not allow the shortcut. Choose it again, or "
                           "bind the command “assista quick --selection” in the desktop's "
                           "keyboard settings.")
        if self.status == "invalid":
            return self._invalid_reason()
        if self.status == "unavailable":
            return self.tr("Not available on this desktop: bind the command “assista quick "
                           "--selection” to a shortcut in the desktop's keyboard settings.")
        return self.tr("No global shortcut. The command “assista quick --selection” can be "
                       "bound to one in the desktop's keyboard settings.")

    def _invalid_reason(self) -> str:
        if self.detail == "needs_modifier":
            return self.tr("A global shortcut needs Ctrl, Alt or Meta with the key: on its "
                           "own the key could not be typed anywhere else.")
        if self.detail == "key":
            return self.tr("This key cannot be part of a global shortcut: choose a letter, "
                           "digit, function key, Space or an arrow key.")
        return self.tr("A global shortcut is one key with Ctrl, Alt or Meta, not a sequence "
                       "of keys.")

    def _release(self) -> None:
        if self._backend is not None:
            if self.platform == "windows":
                self._backend.unregister()
            elif self.platform == "xcb":
                self._backend.ungrab()
            else:
                self.close()

    def close(self) -> None:
        if self._notifier is not None:
            # gone before its socket closes: a notifier must never watch a closed
            # descriptor (the number is soon another connection's)
            self._notifier.setEnabled(False)
            self._notifier.setParent(None)
            self._notifier = None
        if self._filter is not None:
            app = QCoreApplication.instance()
            if app is not None:
                app.removeNativeEventFilter(self._filter)
            self._filter = None
        if self._backend is not None:
            backend, self._backend = self._backend, None
            if self.platform == "windows":
                backend.unregister()
            else:
                backend.close()
