"""The global shortcut on X11: a passive key grab on the root window (XGrabKey).

Through libxcb with ctypes, on a connection of its own: libxcb is on every X11
desktop (Qt's xcb platform plugin is built on it), so nothing is added to the
bundle, and xcb checks each request on its own (BadAccess: another program holds
the combination) where Xlib would need a process-wide error handler, which Qt has
installed. No Qt here: the caller watches :meth:`XcbKeyGrab.fileno` and calls
:meth:`XcbKeyGrab.read_presses` when it is readable.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

import msgspec

from desktop.ui.quick.key_combo import KeyCombo

log = logging.getLogger(__name__)

KEY_PRESS = 2
MAPPING_NOTIFY = 34  # the keyboard layout changed: keycodes may mean other keys now
BAD_ACCESS = 10
GRAB_MODE_ASYNC = 1
SHIFT_MASK, LOCK_MASK, CONTROL_MASK = 1, 2, 4
MOD_MASKS = (8, 16, 32, 64, 128)  # Mod1..Mod5
NUM_LOCK_KEYSYM = 0xFF7F
ALT_KEYSYMS = (0xFFE9, 0xFFEA)  # Alt_L, Alt_R
SUPER_KEYSYMS = (0xFFEB, 0xFFEC)  # Super_L, Super_R


class X11Unavailable(OSError):
    """No libxcb or no X server to talk to."""


class Cookie(ctypes.Structure):
    _fields_ = [("sequence", ctypes.c_uint)]


class ScreenIterator(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("rem", ctypes.c_int), ("index", ctypes.c_int)]


class GenericError(ctypes.Structure):
    _fields_ = [("response_type", ctypes.c_uint8), ("error_code", ctypes.c_uint8),
                ("sequence", ctypes.c_uint16), ("resource_id", ctypes.c_uint32)]


class KeyPressEvent(ctypes.Structure):
    _fields_ = [("response_type", ctypes.c_uint8), ("detail", ctypes.c_uint8),
                ("sequence", ctypes.c_uint16), ("time", ctypes.c_uint32),
                ("root", ctypes.c_uint32), ("event", ctypes.c_uint32),
                ("child", ctypes.c_uint32), ("root_x", ctypes.c_int16),
                ("root_y", ctypes.c_int16), ("event_x", ctypes.c_int16),
                ("event_y", ctypes.c_int16), ("state", ctypes.c_uint16)]


class MappingReplyHeader(ctypes.Structure):
    """The head of a GetKeyboardMapping / GetModifierMapping reply (32 bytes)."""
    _fields_ = [("response_type", ctypes.c_uint8), ("per_code", ctypes.c_uint8),
                ("sequence", ctypes.c_uint16), ("length", ctypes.c_uint32),
                ("pad", ctypes.c_uint8 * 24)]


# min_keycode and max_keycode in xcb_setup_t
SETUP_MIN_KEYCODE_OFFSET = 34


def load_xcb() -> ctypes.CDLL:
    try:  # the soname first: find_library may run ldconfig or a compiler
        lib = ctypes.CDLL("libxcb.so.1")
    except OSError:
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("xcb") or "libxcb.so")
        except OSError as exc:
            raise X11Unavailable(f"libxcb is not available: {exc}") from exc
    void_p, c_int = ctypes.c_void_p, ctypes.c_int
    signatures: dict[str, tuple[list[object], object]] = {
        "xcb_connect": ([ctypes.c_char_p, ctypes.POINTER(c_int)], void_p),
        "xcb_connection_has_error": ([void_p], c_int),
        "xcb_disconnect": ([void_p], None),
        "xcb_get_setup": ([void_p], void_p),
        "xcb_setup_roots_iterator": ([void_p], ScreenIterator),
        "xcb_screen_next": ([ctypes.POINTER(ScreenIterator)], None),
        "xcb_get_file_descriptor": ([void_p], c_int),
        "xcb_flush": ([void_p], c_int),
        "xcb_poll_for_event": ([void_p], void_p),
        "xcb_request_check": ([void_p, Cookie], void_p),
        "xcb_grab_key_checked": ([void_p, ctypes.c_uint8, ctypes.c_uint32, ctypes.c_uint16,
                                  ctypes.c_uint8, ctypes.c_uint8, ctypes.c_uint8], Cookie),
        "xcb_ungrab_key": ([void_p, ctypes.c_uint8, ctypes.c_uint32, ctypes.c_uint16],
                           Cookie),
        "xcb_get_keyboard_mapping": ([void_p, ctypes.c_uint8, ctypes.c_uint8], Cookie),
        "xcb_get_keyboard_mapping_reply": ([void_p, Cookie, void_p], void_p),
        "xcb_get_modifier_mapping": ([void_p], Cookie),
        "xcb_get_modifier_mapping_reply": ([void_p, Cookie, void_p], void_p),
    }
    for fname, (args, result) in signatures.items():
        function = getattr(lib, fname)
        function.argtypes = args
        function.restype = result
    return lib


_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]


class Keymap(msgspec.Struct, weakref=True):
    """Which keycodes make which keysyms, and which modifier bits NumLock, Alt and
    Super are on this X server."""
    codes: dict[int, list[tuple[int, bool]]]  # keysym -> (keycode, with Shift), plain first
    num_lock: int
    alt: int
    meta: int


class XcbKeyGrab:
    """One connection to the X server holding at most one grabbed combination."""

    def __init__(self, display: str | None = None) -> None:
        self.lib = load_xcb()
        screen = ctypes.c_int(0)
        self.conn = self.lib.xcb_connect(display.encode() if display else None,
                                         ctypes.byref(screen))
        if not self.conn or self.lib.xcb_connection_has_error(self.conn):
            if self.conn:
                self.lib.xcb_disconnect(self.conn)
            self.conn = None
            raise X11Unavailable(f"cannot connect to the X display {display or ''}".strip())
        self.setup = self.lib.xcb_get_setup(self.conn)
        roots = self.lib.xcb_setup_roots_iterator(self.setup)
        for _ in range(screen.value):
            self.lib.xcb_screen_next(ctypes.byref(roots))
        self.root = ctypes.c_uint32.from_address(roots.data).value
        self.grabs: list[tuple[int, int]] = []  # (keycode, modifiers) held now
        self.wanted: set[tuple[int, int]] = set()  # a press of any of these is ours
        self.keymap = self._read_keymap()
        self.keymap_changed = False  # a MappingNotify came: re-read, grab again

    def fileno(self) -> int:
        return int(self.lib.xcb_get_file_descriptor(self.conn))

    def _read_keymap(self) -> Keymap:
        low = ctypes.c_uint8.from_address(self.setup + SETUP_MIN_KEYCODE_OFFSET).value
        high = ctypes.c_uint8.from_address(self.setup + SETUP_MIN_KEYCODE_OFFSET + 1).value
        count = high - low + 1
        reply = self.lib.xcb_get_keyboard_mapping_reply(
            self.conn, self.lib.xcb_get_keyboard_mapping(self.conn, low, count), None)
        codes: dict[int, list[tuple[int, bool]]] = {}
        if reply:
            try:
                head = MappingReplyHeader.from_address(reply)
                per = head.per_code
                syms = (ctypes.c_uint32 * head.length).from_address(reply + 32)
                for column in range(min(per, 2)):  # unshifted, then shifted
                    for index in range(count):
                        sym = syms[index * per + column]
                        if sym:
                            codes.setdefault(sym, []).append((low + index, column == 1))
            finally:
                _libc.free(reply)
        masks = {NUM_LOCK_KEYSYM: 0, ALT_KEYSYMS[0]: 0, SUPER_KEYSYMS[0]: 0}
        reply = self.lib.xcb_get_modifier_mapping_reply(
            self.conn, self.lib.xcb_get_modifier_mapping(self.conn), None)
        if reply:
            try:
                per = MappingReplyHeader.from_address(reply).per_code
                keycodes = (ctypes.c_uint8 * (8 * per)).from_address(reply + 32)
                for modifier in range(3, 8):  # Mod1..Mod5
                    held = {keycodes[modifier * per + i] for i in range(per)} - {0}
                    for sym, alias in ((NUM_LOCK_KEYSYM, NUM_LOCK_KEYSYM),
                                       (ALT_KEYSYMS[0], ALT_KEYSYMS[0]),
                                       (ALT_KEYSYMS[1], ALT_KEYSYMS[0]),
                                       (SUPER_KEYSYMS[0], SUPER_KEYSYMS[0]),
                                       (SUPER_KEYSYMS[1], SUPER_KEYSYMS[0])):
                        if not masks[alias] and held & {code for code, _ in codes.get(sym, [])}:
                            masks[alias] = MOD_MASKS[modifier - 3]
            finally:
                _libc.free(reply)
        return Keymap(codes, num_lock=masks[NUM_LOCK_KEYSYM],
                      alt=masks[ALT_KEYSYMS[0]] or MOD_MASKS[0],
                      meta=masks[SUPER_KEYSYMS[0]] or MOD_MASKS[3])

    def grab(self, combo: KeyCombo) -> str:
        """Grab ``combo`` (dropping the one held before): "registered", or "taken"
        (another program grabbed it), or "unavailable" (no key makes it here)."""
        self.ungrab()
        keys = self.keymap.codes.get(combo.keysym(), [])
        if not keys:
            return "unavailable"
        keycode, shifted = keys[0]  # ("+" on a US layout: Shift and the "=" key)
        base = ((CONTROL_MASK if combo.ctrl else 0)
                | (SHIFT_MASK if combo.shift or shifted else 0)
                | (self.keymap.alt if combo.alt else 0) | (self.keymap.meta if combo.meta else 0))
        # The same combination with CapsLock and/or NumLock on: X matches modifiers exactly.
        variants = {base, base | LOCK_MASK, base | self.keymap.num_lock,
                    base | LOCK_MASK | self.keymap.num_lock}
        taken = False
        for mods in sorted(variants):
            cookie = self.lib.xcb_grab_key_checked(self.conn, 1, self.root, mods, keycode,
                                                   GRAB_MODE_ASYNC, GRAB_MODE_ASYNC)
            error = self.lib.xcb_request_check(self.conn, cookie)
            if error:
                code = GenericError.from_address(error).error_code
                _libc.free(error)
                log.info("XGrabKey keycode %d modifiers %#x failed: error %d",
                         keycode, mods, code)
                taken = taken or code == BAD_ACCESS
                continue
            self.grabs.append((keycode, mods))
        if taken or not self.grabs:
            self.ungrab()
            return "taken" if taken else "unavailable"
        self.wanted = set(self.grabs)
        return "registered"

    def regrab(self, combo: KeyCombo) -> str:
        """After a layout change: the same combination on the keys that make it now."""
        self.keymap_changed = False
        self.keymap = self._read_keymap()
        return self.grab(combo)

    def ungrab(self) -> None:
        for keycode, mods in self.grabs:
            self.lib.xcb_ungrab_key(self.conn, keycode, self.root, mods)
        if self.grabs:
            self.lib.xcb_flush(self.conn)
        self.grabs = []
        self.wanted = set()

    def read_presses(self) -> int:
        """Handle what the server sent: the number of presses of the grabbed combination."""
        presses = 0
        while self.conn:
            event = self.lib.xcb_poll_for_event(self.conn)
            if not event:
                if self.lib.xcb_connection_has_error(self.conn):
                    raise X11Unavailable("the connection to the X server was lost")
                break
            try:
                press = KeyPressEvent.from_address(event)
                if press.response_type & 0x7F == MAPPING_NOTIFY:
                    self.keymap_changed = True
                elif press.response_type & 0x7F == KEY_PRESS and \
                        (press.detail, press.state & 0xFF) in self.wanted:
                    presses += 1
            finally:
                _libc.free(event)
        return presses

    def close(self) -> None:
        if self.conn:
            self.ungrab()
            self.lib.xcb_disconnect(self.conn)
            self.conn = None
