"""The saved chats as the window reads them: the store, a chat's active branch, a search
hit and the query's terms (to highlight them). The window takes these from here, not
from the storage layer (issue 26: the interface imports no storage module)."""

from __future__ import annotations

from desktop.storage.branches import ActiveBranch
from desktop.storage.search import SearchHit, parse_query
from desktop.storage.sessions import SessionStore

__all__ = ["ActiveBranch", "SearchHit", "SessionStore", "parse_query"]
