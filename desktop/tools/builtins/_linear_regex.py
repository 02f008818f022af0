"""Regular expressions the model writes, compiled for RE2: matching takes linear time.

Python's ``re`` backtracks: ``(a+)+$`` against a long line of ``a`` runs for
minutes, holding the interpreter (and with it the event loop and the tool timeout,
which cannot fire while a C call holds the GIL). RE2 (``google-re2``, one 0.6 MB
wheel, no dependencies) guarantees time linear in the text for every pattern. It
does not support backreferences or lookaround; such a pattern is refused with a
message that says what to use instead.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from desktop.core.errors import ToolError


class Match(Protocol):
    def start(self) -> int: ...


class Pattern(Protocol):
    def search(self, text: str) -> Match | None: ...


_UNSUPPORTED = re.compile(r"\(\?<?[=!]|\\[1-9]|\(\?P=|\(\?\(")


def compile_linear(query: str, *, case_sensitive: bool) -> Pattern:
    """``query`` as an RE2 pattern; ToolError ``invalid_regex`` when RE2 cannot take it."""
    import re2  # type: ignore[import-untyped]

    options: Any = re2.Options()
    options.case_sensitive = case_sensitive
    options.log_errors = False  # a bad pattern is the model's, reported to it, not logged
    try:
        compiled: Pattern = re2.compile(query, options=options)
    except re2.error as exc:
        detail = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(
            exc.args[0], bytes) else str(exc)
        hint = ""
        if _UNSUPPORTED.search(query):
            hint = (" Backreferences (\\1, (?P=name)), lookahead/lookbehind ((?=, (?!, (?<=, "
                    "(?<!) and conditionals are not supported: regexes run on RE2, which "
                    "matches in linear time; search for a simpler pattern and check the "
                    "results.")
        raise ToolError(
            f"Invalid regular expression: {detail}.{hint} Fix the pattern, or set "
            "regex=false to search for the text literally.",
            code="invalid_regex",
        ) from None
    return compiled


__all__ = ["Match", "Pattern", "compile_linear"]
