"""The facts the assistant keeps across chats (the chat service's ``memories``), as
the window's Memory page lists and edits them. Taken from here by the window, not from
the storage layer (issue 26)."""

from __future__ import annotations

from desktop.storage.memories import Memory, MemoryStore

__all__ = ["Memory", "MemoryStore"]
