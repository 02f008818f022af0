"""A library imported when a test first uses it, not when pytest collects the test file.

Each pytest-xdist worker collects every test file but runs only its share, so a test
file's module-level imports are paid by every worker. The model SDKs the differential
tests compare against take about a CPU-second each to import (anthropic nearly two):
``anthropic = lazy("anthropic")`` imports it at the first attribute a test reads, and
skips that test, as ``pytest.importorskip`` does, where it is not installed.
"""

from __future__ import annotations

from typing import Any

import pytest


class _Lazy:
    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):  # (what pytest asks of a module's names as it
            raise AttributeError(attribute)  # collects: no import for that)
        return getattr(pytest.importorskip(self._name), attribute)

    def __repr__(self) -> str:
        return f"<{self._name}, imported when first used>"


def lazy(name: str) -> Any:
    return _Lazy(name)
