"""A key combination as Preferences stores it ("Ctrl+Alt+Space", Qt's portable text),
and what each platform calls it: an X keysym, a Windows virtual-key code, the
desktop portal's trigger text. No Qt: the backends and their tests use it alone."""

from __future__ import annotations

import msgspec

#: Qt's portable names of the keys a global shortcut may end with -> X keysym.
NAMED_KEYSYMS = {
    "Space": 0x20, "Return": 0xFF0D, "Enter": 0xFF8D, "Tab": 0xFF09, "Esc": 0xFF1B,
    "Backspace": 0xFF08, "Ins": 0xFF63, "Del": 0xFFFF, "Home": 0xFF50, "End": 0xFF57,
    "PgUp": 0xFF55, "PgDown": 0xFF56, "Left": 0xFF51, "Up": 0xFF52, "Right": 0xFF53,
    "Down": 0xFF54, "Print": 0xFF61, "Pause": 0xFF13,
}
#: The same keys as Windows virtual-key codes.
NAMED_VKS = {
    "Space": 0x20, "Return": 0x0D, "Enter": 0x0D, "Tab": 0x09, "Esc": 0x1B,
    "Backspace": 0x08, "Ins": 0x2D, "Del": 0x2E, "Home": 0x24, "End": 0x23,
    "PgUp": 0x21, "PgDown": 0x22, "Left": 0x25, "Up": 0x26, "Right": 0x27, "Down": 0x28,
    "Print": 0x2C, "Pause": 0x13,
}
#: The same keys by their xkb keysym names (the portal's trigger text).
NAMED_XKB = {
    "Space": "space", "Return": "Return", "Enter": "KP_Enter", "Tab": "Tab",
    "Esc": "Escape", "Backspace": "BackSpace", "Ins": "Insert", "Del": "Delete",
    "Home": "Home", "End": "End", "PgUp": "Page_Up", "PgDown": "Page_Down",
    "Left": "Left", "Up": "Up", "Right": "Right", "Down": "Down", "Print": "Print",
    "Pause": "Pause",
}
MODIFIERS = ("Ctrl", "Shift", "Alt", "Meta")


class KeyComboError(ValueError):
    """Text that is not one key with modifiers; ``reason`` says why in a word the
    interface translates: empty, sequence, no_key, modifier, needs_modifier, key."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class KeyCombo(msgspec.Struct, frozen=True):
    """A key combination: one key and its modifiers."""

    key: str  # Qt's portable name: "Space", "K", "F5", "/"
    ctrl: bool = False
    shift: bool = False
    alt: bool = False
    meta: bool = False  # the Windows / Super key

    @classmethod
    def parse(cls, text: str) -> KeyCombo:
        """``"Ctrl+Alt+Space"`` -> KeyCombo; raises :class:`KeyComboError`."""
        text = text.strip()
        if not text:
            raise KeyComboError("empty", "no key combination")
        if ", " in text:
            raise KeyComboError("sequence", "one key combination, not a sequence")
        if text.endswith("+") and (text == "+" or text.endswith("++")):
            mods, key = [m for m in text[:-1].split("+") if m], "+"  # the plus key itself
        else:
            *mods, key = text.split("+")
        if not key:
            raise KeyComboError("no_key", "the combination has no key")
        unknown = [mod for mod in mods if mod not in MODIFIERS]
        if unknown:
            raise KeyComboError("modifier", f"unknown modifier {unknown[0]!r}")
        combo = cls(key=key, ctrl="Ctrl" in mods, shift="Shift" in mods,
                    alt="Alt" in mods, meta="Meta" in mods)
        if not (combo.ctrl or combo.alt or combo.meta):
            # a bare key (or Shift+key) grabbed everywhere would stop the user typing it
            raise KeyComboError("needs_modifier", "a global shortcut needs Ctrl, Alt or Meta")
        combo.keysym()  # raises for keys no platform here can name
        return combo

    def text(self) -> str:
        mods = [name for name, on in zip(MODIFIERS, (self.ctrl, self.shift, self.alt,
                                                     self.meta), strict=True) if on]
        return "+".join([*mods, self.key])

    def function_key(self) -> int | None:
        if self.key[:1] == "F" and self.key[1:].isdigit() and 1 <= int(self.key[1:]) <= 24:
            return int(self.key[1:])
        return None

    def keysym(self) -> int:
        """The X keysym of the key (letters lower-case, as X maps them)."""
        if self.key in NAMED_KEYSYMS:
            return NAMED_KEYSYMS[self.key]
        number = self.function_key()
        if number is not None:
            return 0xFFBE + number - 1
        if len(self.key) == 1 and 0x21 <= ord(self.key) <= 0x7E:
            return ord(self.key.lower())  # Latin-1 keysyms are the characters' codes
        raise KeyComboError("key", f"the key {self.key!r} cannot be a global shortcut")

    def windows_vk(self) -> int | None:
        """The Windows virtual-key code, None for punctuation (looked up per layout)."""
        if self.key in NAMED_VKS:
            return NAMED_VKS[self.key]
        number = self.function_key()
        if number is not None:
            return 0x70 + number - 1
        if len(self.key) == 1 and self.key.isascii() and self.key.isalnum():
            return ord(self.key.upper())
        return None

    def portal_trigger(self) -> str:
        """The trigger in the XDG shortcuts format the portal takes ("CTRL+ALT+space")."""
        mods = [name for name, on in zip(("CTRL", "SHIFT", "ALT", "LOGO"),
                                         (self.ctrl, self.shift, self.alt, self.meta),
                                         strict=True) if on]
        key = NAMED_XKB.get(self.key) or (self.key if self.function_key() else None)
        if key is None:
            key = self.key.lower() if self.key.isalnum() else f"U{ord(self.key):04X}"
        return "+".join([*mods, key])
