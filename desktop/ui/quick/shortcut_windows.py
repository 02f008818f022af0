"""The global shortcut on Windows: RegisterHotKey through ctypes.

A hot key registered without a window posts WM_HOTKEY to the registering thread's
queue; Qt's event dispatcher hands every message it takes off that queue to the
application's native event filters ("windows_generic_MSG"), where
:class:`HotKeyFilter` picks ours out. Not run by the tests here (Linux only).
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractNativeEventFilter, QByteArray

from desktop.ui.quick.key_combo import KeyCombo

log = logging.getLogger(__name__)

WM_HOTKEY = 0x0312
MOD_ALT, MOD_CONTROL, MOD_SHIFT, MOD_WIN, MOD_NOREPEAT = 0x1, 0x2, 0x4, 0x8, 0x4000
ERROR_HOTKEY_ALREADY_REGISTERED = 1409
HOTKEY_ID = 0x4153  # any id in 0x0000-0xBFFF, unique within this app


class MSG(ctypes.Structure):
    _fields_ = [("hwnd", ctypes.c_void_p), ("message", ctypes.c_uint),
                ("wParam", ctypes.c_size_t), ("lParam", ctypes.c_ssize_t),
                ("time", ctypes.c_ulong), ("pt_x", ctypes.c_long), ("pt_y", ctypes.c_long)]


class HotKeyFilter(QAbstractNativeEventFilter):
    def __init__(self, on_hotkey: Callable[[], None]) -> None:
        super().__init__()
        self.on_hotkey = on_hotkey

    def nativeEventFilter(self, eventType: QByteArray | bytes | bytearray | memoryview,
                          message: int) -> object:
        kind = eventType.data() if isinstance(eventType, QByteArray) else bytes(eventType)
        if kind == b"windows_generic_MSG":
            msg = MSG.from_address(int(message))
            if msg.message == WM_HOTKEY and msg.wParam == HOTKEY_ID:
                self.on_hotkey()
                return True, 0
        return False, 0


class WindowsHotKey:
    def __init__(self) -> None:
        windll = getattr(ctypes, "WinDLL", None)  # (Windows only)
        if windll is None:
            raise RuntimeError("RegisterHotKey is a Windows function")
        self.user32: Any = windll("user32", use_last_error=True)
        self.user32.RegisterHotKey.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint,
                                               ctypes.c_uint]
        self.user32.UnregisterHotKey.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.user32.VkKeyScanW.argtypes = [ctypes.c_wchar]
        self.user32.VkKeyScanW.restype = ctypes.c_short
        self.registered = False

    def register(self, combo: KeyCombo) -> str:
        """"registered", "taken" (another program has it) or "unavailable"."""
        self.unregister()
        vk = combo.windows_vk()
        if vk is None:  # punctuation: where it is on this keyboard layout
            scan = int(self.user32.VkKeyScanW(combo.key))
            if scan == -1 or scan & 0xFF00:  # not on the layout, or needs Shift/AltGr
                return "unavailable"
            vk = scan & 0xFF
        mods = ((MOD_CONTROL if combo.ctrl else 0) | (MOD_SHIFT if combo.shift else 0)
                | (MOD_ALT if combo.alt else 0) | (MOD_WIN if combo.meta else 0) | MOD_NOREPEAT)
        if self.user32.RegisterHotKey(None, HOTKEY_ID, mods, vk):
            self.registered = True
            return "registered"
        error = int(getattr(ctypes, "get_last_error")())  # noqa: B009 (Windows only)
        log.info("RegisterHotKey %s failed: error %d", combo.text(), error)
        return "taken" if error == ERROR_HOTKEY_ALREADY_REGISTERED else "unavailable"

    def unregister(self) -> None:
        if self.registered:
            self.user32.UnregisterHotKey(None, HOTKEY_ID)
            self.registered = False
