"""Objects there is one of per application (the theme, the frame clock), owned by it.

Made on first use and kept on the running ``QCoreApplication`` (so a test's new
application gets new ones); code run before any application exists gets one kept
here until then."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QCoreApplication, QObject

T = TypeVar("T", bound=QObject)

_without_app: dict[str, QObject] = {}


def owned_by_app(attribute: str, kind: type[T], make: Callable[[QObject | None], T]) -> T:
    """The application's ``kind`` kept under ``attribute``; ``make(parent)`` makes it."""
    app = QCoreApplication.instance()
    if app is None:
        found = _without_app.get(attribute)
        if not isinstance(found, kind):
            found = make(None)
            _without_app[attribute] = found
        return found
    owned = getattr(app, attribute, None)
    if not isinstance(owned, kind):
        owned = make(app)
        setattr(app, attribute, owned)
    return owned
