"""Form fields that must keep their whole width.

A check box's words are cut, never wrapped, and Qt lets a form squeeze one below its
text (a button says its size hint is only a preference). :func:`whole` says it cannot
shrink, so that a form laid out with ``WrapLongRows`` puts it under its label, and a
scrolling page scrolls, instead of cutting its last letters off.
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtWidgets import QSizePolicy, QWidget

W = TypeVar("W", bound=QWidget)


def whole(widget: W) -> W:
    policy = widget.sizePolicy()
    policy.setHorizontalPolicy(QSizePolicy.Policy.Minimum)
    widget.setSizePolicy(policy)
    return widget
