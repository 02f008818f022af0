"""Tool failures that carry structured detail for the model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from desktop.core.errors import ToolError


class ToolFailure(ToolError):
    """A :class:`ToolError` with extra JSON-able fields for the error object.

    The executor reports it as ``{"status": "error", "error": {"code", "message", **extra}}``.
    ``extra`` must not use the keys ``code`` or ``message``.
    """

    def __init__(
        self,
        message: str,
        *,
        code: str = "tool_error",
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message, code=code)
        self.extra: dict[str, Any] = {
            k: v for k, v in (extra or {}).items() if k not in ("code", "message")
        }


def error_fields(exc: ToolError) -> dict[str, Any]:
    """The ``error`` object for a tool error: code, message and any extra detail."""
    fields: dict[str, Any] = {"code": exc.code, "message": str(exc)}
    if isinstance(exc, ToolFailure):
        fields.update(exc.extra)
    return fields
