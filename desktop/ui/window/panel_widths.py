"""The window widths below which the side panels become drawers.

Shared by the window's body (:mod:`desktop.ui.window.panels`) and the start-up
skeleton, which shows the same panes before the body exists; plain numbers, so the
skeleton can read them before the window's first frame.
"""

TOOLS_INLINE_MIN = 1000  # px: narrower than this, Tool activity is a drawer
CHATS_INLINE_MIN = 760  # px: narrower than this, the chat list is a drawer too
