"""The Windows hot key's message filter, fed messages laid out as Windows lays out MSG
(RegisterHotKey itself needs Windows: not run here)."""

from __future__ import annotations

import ctypes

import pytest

from desktop.ui.quick.shortcut_windows import (
    HOTKEY_ID,
    MSG,
    WM_HOTKEY,
    HotKeyFilter,
    WindowsHotKey,
)


def test_only_our_hot_key_message_is_taken() -> None:
    pressed: list[bool] = []
    hot_keys = HotKeyFilter(lambda: pressed.append(True))
    ours = MSG(message=WM_HOTKEY, wParam=HOTKEY_ID)
    other_id = MSG(message=WM_HOTKEY, wParam=HOTKEY_ID + 1)
    other_message = MSG(message=0x0100, wParam=HOTKEY_ID)  # WM_KEYDOWN
    assert hot_keys.nativeEventFilter(b"windows_generic_MSG",
                                      ctypes.addressof(other_id)) == (False, 0)
    assert hot_keys.nativeEventFilter(b"windows_generic_MSG",
                                      ctypes.addressof(other_message)) == (False, 0)
    assert hot_keys.nativeEventFilter(b"xcb_generic_event_t",
                                      ctypes.addressof(ours)) == (False, 0)
    assert pressed == []
    assert hot_keys.nativeEventFilter(b"windows_generic_MSG",
                                      ctypes.addressof(ours)) == (True, 0)
    assert pressed == [True]


def test_register_hot_key_is_windows_only() -> None:
    if hasattr(ctypes, "WinDLL"):
        pytest.skip("on Windows the real RegisterHotKey is there")
    with pytest.raises(RuntimeError, match="Windows"):
        WindowsHotKey()
